"""plumbers' work on the portal: permits they applied for online, and a plumber's choice to stop emails (issue 33)

``permits.plumber_user_id`` is the plumber's account that applied online (the permit is
theirs to follow on the portal; the desk sees it came from there; the owner's written
consent they attach is one of the permit's ``permit_attachments``);
``plumber_licenses.emails_stopped_at`` records that a plumber asked for no more email.

Revision ID: 0022_plumber_work
Revises: 0021_permit_attachments
"""
import sqlalchemy as sa
from alembic import op

from server.core.dialects import drop_group_total_triggers, group_total_triggers

# The register's totals (migration 0021): SQLite drops a table's triggers when batch mode
# copies it, so each batch on ``permits`` below makes them again (PostgreSQL keeps them).
AMOUNT = "CASE WHEN {row}paid THEN {row}fee_total ELSE 0 END"


def _keep_permit_totals():
    bind = op.get_bind()
    for statement in [*drop_group_total_triggers(bind, "permits", "permit_totals"),
                      *group_total_triggers(bind, "permits", "permit_totals", "state", AMOUNT)]:
        op.execute(statement)

# revision identifiers, used by Alembic.
revision = "0022_plumber_work"
down_revision = "0021_permit_attachments"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("permits", schema=None) as batch_op:
        batch_op.add_column(sa.Column("plumber_user_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(batch_op.f("fk_permits_plumber_user_id_users"), "users", ["plumber_user_id"],
                                    ["id"])
        batch_op.create_index(batch_op.f("ix_permits_plumber_user_id"), ["plumber_user_id"], unique=False)
    _keep_permit_totals()
    with op.batch_alter_table("plumber_licenses", schema=None) as batch_op:
        batch_op.add_column(sa.Column("emails_stopped_at", sa.DateTime(timezone=True), nullable=True))


def downgrade():
    with op.batch_alter_table("plumber_licenses", schema=None) as batch_op:
        batch_op.drop_column("emails_stopped_at")
    with op.batch_alter_table("permits", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_permits_plumber_user_id"))
        batch_op.drop_constraint(batch_op.f("fk_permits_plumber_user_id_users"), type_="foreignkey")
        batch_op.drop_column("plumber_user_id")
    _keep_permit_totals()
