"""an inspector's field edit outside their assigned parcels is a proposal (issue 15)

``push_records.outcome`` may be ``proposed``: the edit was held as a sync conflict for the
superintendent to accept or reject instead of being applied.

Revision ID: 0012_sync_proposals
Revises: 0011_notice_kinds_registry
"""
from alembic import op

# revision identifiers, used by Alembic.
revision = "0012_sync_proposals"
down_revision = "0011_notice_kinds_registry"
branch_labels = None
depends_on = None

OLD = "outcome IS NULL OR outcome IN ('created', 'stale_version')"
NEW = "outcome IS NULL OR outcome IN ('created', 'stale_version', 'proposed')"


def _outcomes(condition: str) -> None:
    with op.batch_alter_table("push_records", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_push_records_outcome"), type_="check")
        batch_op.create_check_constraint(op.f("ck_push_records_outcome"), condition)


def upgrade():
    _outcomes(NEW)


def downgrade():
    op.execute("DELETE FROM push_records WHERE outcome = 'proposed'")
    _outcomes(OLD)
