"""notices, certified mail and the legal calendar (issue: Notices)

Revision ID: 0004_notices
Revises: 0003_field_inspections
"""

# revision identifiers, used by Alembic.
revision = "0004_notices"
down_revision = "0003_field_inspections"
branch_labels = None
depends_on = None


def upgrade():
    pass  # filled in by the work on this feature; kept in the chain so revisions stay linear


def downgrade():
    pass
