"""the owners' portal: lookup codes printed on notice letters (issue 33)

One row per code printed on a letter of a notice (only the code's SHA-256 is kept); what
code holders did online (appeals filed, proofs of correction with their files, visits asked for);
plumbers' accounts: the role ``plumber`` and each one's Wisconsin license, verified by the clerk.

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


OLD_ROLES = "role IS NULL OR role IN ('inspector', 'superintendent', 'clerk', 'admin')"
NEW_ROLES = "role IS NULL OR role IN ('inspector', 'superintendent', 'clerk', 'admin', 'plumber')"


def _roles(condition: str) -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_users_role"), type_="check")
        batch_op.create_check_constraint(op.f("ck_users_role"), condition)


def upgrade():
    _roles(NEW_ROLES)
    op.create_table(
        "plumber_licenses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("license_number", sa.String(length=20), nullable=False),
        sa.Column("expires_on", sa.Date(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("phone", sa.String(length=40), nullable=True),
        sa.Column("company", sa.String(length=200), nullable=True),
        sa.Column("registered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("verified_by_id", sa.Integer(), nullable=True),
        sa.Column("verified_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE",
                                name=op.f("fk_plumber_licenses_user_id_users")),
        sa.ForeignKeyConstraint(["verified_by_id"], ["users.id"], name=op.f("fk_plumber_licenses_verified_by_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_plumber_licenses")),
        sa.UniqueConstraint("user_id", name=op.f("uq_plumber_licenses_user_id")),
    )
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


    op.create_table(
        "portal_actions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("notice_id", sa.Integer(), nullable=False),
        sa.Column("lookup_code_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=12), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("preferred_days", sa.JSON(), nullable=True),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("appeal_id", sa.Integer(), nullable=True),
        sa.Column("reviewed_by_id", sa.Integer(), nullable=True),
        sa.Column("reviewed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("review_note", sa.Text(), nullable=True),
        sa.CheckConstraint("kind IS NULL OR kind IN ('appeal', 'proof', 'visit')", name=op.f("ck_portal_actions_kind")),
        sa.CheckConstraint("state IS NULL OR state IN ('received', 'accepted', 'reinspection')",
                           name=op.f("ck_portal_actions_state")),
        sa.ForeignKeyConstraint(["notice_id"], ["notices.id"], ondelete="CASCADE",
                                name=op.f("fk_portal_actions_notice_id_notices")),
        sa.ForeignKeyConstraint(["lookup_code_id"], ["portal_lookup_codes.id"],
                                name=op.f("fk_portal_actions_lookup_code_id_portal_lookup_codes")),
        sa.ForeignKeyConstraint(["appeal_id"], ["notice_appeals.id"],
                                name=op.f("fk_portal_actions_appeal_id_notice_appeals")),
        sa.ForeignKeyConstraint(["reviewed_by_id"], ["users.id"], name=op.f("fk_portal_actions_reviewed_by_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_portal_actions")),
    )
    op.create_index(op.f("ix_portal_actions_notice_id"), "portal_actions", ["notice_id"])
    op.create_table(
        "portal_files",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("action_id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("media_type", sa.String(length=40), nullable=False),
        sa.Column("filename", sa.String(length=200), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["action_id"], ["portal_actions.id"], ondelete="CASCADE",
                                name=op.f("fk_portal_files_action_id_portal_actions")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_portal_files")),
    )
    op.create_index(op.f("ix_portal_files_action_id"), "portal_files", ["action_id"])


def downgrade():
    op.drop_table("plumber_licenses")
    op.execute("DELETE FROM users WHERE role = 'plumber'")
    _roles(OLD_ROLES)
    op.drop_index(op.f("ix_portal_files_action_id"), table_name="portal_files")
    op.drop_table("portal_files")
    op.drop_index(op.f("ix_portal_actions_notice_id"), table_name="portal_actions")
    op.drop_table("portal_actions")
    with op.batch_alter_table("portal_lookup_codes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_portal_lookup_codes_notice_id"))
    op.drop_table("portal_lookup_codes")
