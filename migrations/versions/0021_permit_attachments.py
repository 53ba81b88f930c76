"""permits: scanned forms attached to a permit (issue 32)

The clerk taking an application over the counter attaches the scanned forms (PDF, JPEG,
PNG); each is kept in the app's blob store by SHA-256 and listed here with its permit.

Revision ID: 0021_permit_attachments
Revises: 0019_portal
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0021_permit_attachments"
down_revision = "0019_portal"
branch_labels = None
depends_on = None


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


def downgrade():
    op.drop_index(op.f("ix_permit_attachments_permit_id"), table_name="permit_attachments")
    op.drop_table("permit_attachments")
