"""field inspections and offline sync (issue: Field inspections and offline sync)

Revision ID: 0003_field_inspections
Revises: 0002_violations
"""

# revision identifiers, used by Alembic.
revision = "0003_field_inspections"
down_revision = "0002_violations"
branch_labels = None
depends_on = None


def upgrade():
    pass  # filled in by the work on this feature; kept in the chain so revisions stay linear


def downgrade():
    pass
