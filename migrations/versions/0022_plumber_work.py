"""plumbers' work on the portal: permits they applied for online, the owner's consent kept
as a file, and a plumber's choice to stop emails (issue 33)

``permits.plumber_user_id`` is the plumber's account that applied online (the permit is
theirs to follow on the portal; the desk sees it came from there); ``permit_files`` keeps
the owner's written consent they attached (§ 315-11E(1)), by SHA-256 in the blob store;
``plumber_licenses.emails_stopped_at`` records that a plumber asked for no more email.

Revision ID: 0022_plumber_work
Revises: 0019_portal
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0022_plumber_work"
down_revision = "0019_portal"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("permits", schema=None) as batch_op:
        batch_op.add_column(sa.Column("plumber_user_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(batch_op.f("fk_permits_plumber_user_id_users"), "users", ["plumber_user_id"],
                                    ["id"])
        batch_op.create_index(batch_op.f("ix_permits_plumber_user_id"), ["plumber_user_id"], unique=False)
    op.create_table(
        "permit_files",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("permit_id", sa.Integer(), nullable=False),
        sa.Column("purpose", sa.String(length=20), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("media_type", sa.String(length=40), nullable=False),
        sa.Column("filename", sa.String(length=200), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("received_by_id", sa.Integer(), nullable=True),
        sa.CheckConstraint("purpose IS NULL OR purpose IN ('owner_consent')", name=op.f("ck_permit_files_purpose")),
        sa.ForeignKeyConstraint(["permit_id"], ["permits.id"], ondelete="CASCADE",
                                name=op.f("fk_permit_files_permit_id_permits")),
        sa.ForeignKeyConstraint(["received_by_id"], ["users.id"], name=op.f("fk_permit_files_received_by_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_permit_files")),
    )
    op.create_index(op.f("ix_permit_files_permit_id"), "permit_files", ["permit_id"])
    with op.batch_alter_table("plumber_licenses", schema=None) as batch_op:
        batch_op.add_column(sa.Column("emails_stopped_at", sa.DateTime(timezone=True), nullable=True))


def downgrade():
    with op.batch_alter_table("plumber_licenses", schema=None) as batch_op:
        batch_op.drop_column("emails_stopped_at")
    op.drop_index(op.f("ix_permit_files_permit_id"), table_name="permit_files")
    op.drop_table("permit_files")
    with op.batch_alter_table("permits", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_permits_plumber_user_id"))
        batch_op.drop_constraint(batch_op.f("fk_permits_plumber_user_id_users"), type_="foreignkey")
        batch_op.drop_column("plumber_user_id")
