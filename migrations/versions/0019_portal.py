"""the owners' portal: lookup codes printed on notice letters (issue 33)

One row per code printed on a letter of a notice; only the code's SHA-256 is kept.

Revision ID: 0019_portal
Revises: 0018_operations_that_hold
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0019_portal"
down_revision = "0018_operations_that_hold"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "portal_lookup_codes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("notice_id", sa.Integer(), nullable=False),
        sa.Column("code_sha256", sa.String(length=64), nullable=False),
        sa.Column("issued_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["notice_id"], ["notices.id"], ondelete="CASCADE",
                                name=op.f("fk_portal_lookup_codes_notice_id_notices")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_portal_lookup_codes")),
        sa.UniqueConstraint("code_sha256", name=op.f("uq_portal_lookup_codes_code_sha256")),
    )
    with op.batch_alter_table("portal_lookup_codes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_portal_lookup_codes_notice_id"), ["notice_id"], unique=False)


def downgrade():
    with op.batch_alter_table("portal_lookup_codes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_portal_lookup_codes_notice_id"))
    op.drop_table("portal_lookup_codes")
