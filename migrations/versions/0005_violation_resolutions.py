"""violations resolved by a later inspection (issue: close what a passing inspection disproves)

A violation opened by an inspection is resolved when a later inspection of the parcel
finds the breach gone (access granted, a reinspection passed); the violation names
that inspection.

Revision ID: 0005_violation_resolutions
Revises: 0004_notices
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0005_violation_resolutions"
down_revision = "0004_notices"
branch_labels = None
depends_on = None


def upgrade():
    # In place, not through batch mode: batch's copy-and-move of a SpatiaLite table loses
    # the geometry registration and spatial index of violations.evidence. SQLite and
    # PostgreSQL both take a named column constraint in ADD COLUMN.
    op.execute(sa.text(
        "ALTER TABLE violations ADD COLUMN resolved_by_inspection_id INTEGER "
        "CONSTRAINT fk_violations_resolved_by_inspection_id_inspections REFERENCES inspections (id)"
    ))


def downgrade():
    # Both drop the column with its constraint in place (SQLite since 3.35).
    op.drop_column("violations", "resolved_by_inspection_id")
