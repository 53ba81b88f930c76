"""permits: scanned forms attached to a permit; the register's totals by state (issue 32)

The clerk taking an application over the counter attaches the scanned forms (PDF, JPEG,
PNG); each is kept in the app's blob store by SHA-256 and listed here with its permit.
``permit_totals`` holds, for each state, how many permits are in it and the fees
collected on them, kept by triggers on ``permits`` (``dialects.group_total_triggers``):
the Permits page reads it instead of every permit (bench/README.md, "Permit register").
SQLite drops a table's triggers when batch mode copies it: a later migration that alters
``permits`` in batch mode makes them again.

Revision ID: 0021_permit_attachments
Revises: 0020_due_process_records
"""
import sqlalchemy as sa
from alembic import op

from server.core.dialects import drop_group_total_triggers, group_total_triggers

# revision identifiers, used by Alembic.
revision = "0021_permit_attachments"
down_revision = "0020_due_process_records"
branch_labels = None
depends_on = None

# The permit states of server/permits/models.py at this revision.
STATES = ("applied", "under_review", "approved", "rejected", "issued", "scheduled", "inspection_requested",
          "passed", "failed", "connected", "closed", "expired", "withdrawn")
AMOUNT = "CASE WHEN {row}paid THEN {row}fee_total ELSE 0 END"


def upgrade():
    op.create_table(
        "permit_attachments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("permit_id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("media_type", sa.String(length=40), nullable=False),
        sa.Column("filename", sa.String(length=200), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("description", sa.String(length=200), nullable=True),
        sa.Column("attached_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attached_by_id", sa.Integer(), nullable=True),
        sa.CheckConstraint("media_type IS NULL OR media_type IN ('application/pdf', 'image/jpeg', 'image/png')",
                           name=op.f("ck_permit_attachments_media_type")),
        sa.ForeignKeyConstraint(["permit_id"], ["permits.id"], name=op.f("fk_permit_attachments_permit_id_permits")),
        sa.ForeignKeyConstraint(["attached_by_id"], ["users.id"],
                                name=op.f("fk_permit_attachments_attached_by_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_permit_attachments")),
    )
    op.create_index(op.f("ix_permit_attachments_permit_id"), "permit_attachments", ["permit_id"])
    # The register by state and kind, and the overdue lists, off an index.
    op.create_index("ix_permits_state_kind", "permits", ["state", "kind", "id"])
    op.create_index("ix_permits_state_issued", "permits", ["state", "issued_on", "id"])
    op.create_index("ix_permits_state_requested", "permits", ["state", "inspection_requested_on", "id"])
    op.create_table(
        "permit_totals",
        sa.Column("state", sa.String(length=24), nullable=False),
        sa.Column("row_count", sa.Integer(), nullable=False),
        sa.Column("amount", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.PrimaryKeyConstraint("state", name=op.f("pk_permit_totals")),
    )
    for state in STATES:
        op.execute(f"INSERT INTO permit_totals (state, row_count, amount) SELECT '{state}', count(*), "
                   f"COALESCE(sum({AMOUNT.format(row='')}), 0) FROM permits WHERE state = '{state}'")
    for statement in group_total_triggers(op.get_bind(), "permits", "permit_totals", "state", AMOUNT):
        op.execute(statement)


def downgrade():
    for statement in drop_group_total_triggers(op.get_bind(), "permits", "permit_totals"):
        op.execute(statement)
    op.drop_table("permit_totals")
    for name in ("ix_permits_state_requested", "ix_permits_state_issued", "ix_permits_state_kind"):
        op.drop_index(name, table_name="permits")
    op.drop_index(op.f("ix_permit_attachments_permit_id"), table_name="permit_attachments")
    op.drop_table("permit_attachments")
