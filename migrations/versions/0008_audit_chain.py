"""the audit trail becomes a hash chain

Each ``audit_events`` row gets ``row_hash``: SHA-256 over the previous row's hash and
its own content (``server.core.audit.trail.chain_hash``). ``audit_chain`` holds the head
(the last row's id and hash), the one row every audit writer updates first. The rows
already written are chained here, in id order, so ``flask audit verify`` covers the
whole trail; the append-only trigger is lifted for that and put back.

Revision ID: 0008_audit_chain
Revises: 0007_election_calendar
"""
import sqlalchemy as sa
from alembic import op

from server.core.audit.trail import GENESIS, chain_hash
from server.core.dialects import append_only_trigger, drop_append_only_trigger

# revision identifiers, used by Alembic.
revision = "0008_audit_chain"
down_revision = "0007_election_calendar"
branch_labels = None
depends_on = None

events = sa.table(
    "audit_events",
    sa.column("id", sa.Integer), sa.column("at", sa.DateTime(timezone=True)), sa.column("user_id", sa.Integer),
    sa.column("action", sa.String), sa.column("subject_type", sa.String), sa.column("subject_id", sa.Integer),
    sa.column("before", sa.JSON), sa.column("after", sa.JSON), sa.column("row_hash", sa.String),
)


def upgrade():
    bind = op.get_bind()
    op.create_table(
        "audit_chain",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("last_id", sa.Integer(), nullable=False),
        sa.Column("last_hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_chain")),
    )
    op.add_column("audit_events", sa.Column("row_hash", sa.String(length=64), nullable=True))

    for sql in drop_append_only_trigger(bind, "audit_events"):
        op.execute(sql)
    previous, last_id = GENESIS, 0
    for row in bind.execute(sa.select(events).order_by(events.c.id)).mappings().all():
        previous, last_id = chain_hash(previous, row), row["id"]
        bind.execute(events.update().where(events.c.id == last_id).values(row_hash=previous))
    for sql in append_only_trigger(bind, "audit_events"):
        op.execute(sql)
    bind.execute(sa.text("INSERT INTO audit_chain (id, last_id, last_hash) VALUES (1, :i, :h)"),
                 {"i": last_id, "h": previous})


def downgrade():
    bind = op.get_bind()
    for sql in drop_append_only_trigger(bind, "audit_events"):
        op.execute(sql)
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        batch_op.drop_column("row_hash")
    for sql in append_only_trigger(bind, "audit_events"):
        op.execute(sql)
    op.drop_table("audit_chain")
