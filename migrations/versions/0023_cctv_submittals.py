"""plumbers' CCTV submittals, their coded observations and certificates of compliance (issue 33)

Revision ID: 0023_cctv_submittals
Revises: 0022_plumber_work
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0023_cctv_submittals"
down_revision = "0022_plumber_work"
branch_labels = None
depends_on = None

STATES = "state IS NULL OR state IN ('awaiting_video', 'received', 'certified', 'repair')"


def upgrade():
    op.create_table(
        "cctv_submittals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("plumber_id", sa.Integer(), nullable=False),
        sa.Column("parcel_id", sa.Integer(), nullable=False),
        sa.Column("permit_id", sa.Integer(), nullable=True),
        sa.Column("notice_id", sa.Integer(), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("inspected_on", sa.Date(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("video_sha256", sa.String(length=64), nullable=True),
        sa.Column("video_media_type", sa.String(length=40), nullable=True),
        sa.Column("video_size", sa.BigInteger(), nullable=True),
        sa.Column("video_filename", sa.String(length=200), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reviewed_by_id", sa.Integer(), nullable=True),
        sa.Column("reviewed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("review_note", sa.Text(), nullable=True),
        sa.Column("repair_notice_id", sa.Integer(), nullable=True),
        sa.Column("emails", sa.Boolean(), nullable=False),
        sa.CheckConstraint(STATES, name=op.f("ck_cctv_submittals_state")),
        sa.ForeignKeyConstraint(["plumber_id"], ["users.id"], name=op.f("fk_cctv_submittals_plumber_id_users")),
        sa.ForeignKeyConstraint(["parcel_id"], ["parcels.id"], name=op.f("fk_cctv_submittals_parcel_id_parcels")),
        sa.ForeignKeyConstraint(["permit_id"], ["permits.id"], name=op.f("fk_cctv_submittals_permit_id_permits")),
        sa.ForeignKeyConstraint(["notice_id"], ["notices.id"], name=op.f("fk_cctv_submittals_notice_id_notices")),
        sa.ForeignKeyConstraint(["reviewed_by_id"], ["users.id"],
                                name=op.f("fk_cctv_submittals_reviewed_by_id_users")),
        sa.ForeignKeyConstraint(["repair_notice_id"], ["notices.id"],
                                name=op.f("fk_cctv_submittals_repair_notice_id_notices")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cctv_submittals")),
    )
    with op.batch_alter_table("cctv_submittals", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_cctv_submittals_plumber_id"), ["plumber_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_cctv_submittals_parcel_id"), ["parcel_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_cctv_submittals_state"), ["state"], unique=False)
    op.create_table(
        "cctv_observations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submittal_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=8), nullable=False),
        sa.Column("distance_ft", sa.Float(), nullable=False),
        sa.Column("clock", sa.Integer(), nullable=False),
        sa.Column("grade", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.Column("remark", sa.Text(), nullable=True),
        sa.CheckConstraint("clock BETWEEN 1 AND 12", name=op.f("ck_cctv_observations_clock")),
        sa.CheckConstraint("grade BETWEEN 1 AND 5", name=op.f("ck_cctv_observations_grade")),
        sa.CheckConstraint("distance_ft >= 0", name=op.f("ck_cctv_observations_distance_ft")),
        sa.ForeignKeyConstraint(["submittal_id"], ["cctv_submittals.id"], ondelete="CASCADE",
                                name=op.f("fk_cctv_observations_submittal_id_cctv_submittals")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cctv_observations")),
    )
    with op.batch_alter_table("cctv_observations", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_cctv_observations_submittal_id"), ["submittal_id"], unique=False)
    op.create_table(
        "cctv_certificates",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submittal_id", sa.Integer(), nullable=False),
        sa.Column("parcel_id", sa.Integer(), nullable=False),
        sa.Column("lateral_id", sa.Integer(), nullable=True),
        sa.Column("permit_id", sa.Integer(), nullable=True),
        sa.Column("issued_by_id", sa.Integer(), nullable=False),
        sa.Column("issued_on", sa.Date(), nullable=False),
        sa.Column("issued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("pdf", sa.LargeBinary(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["submittal_id"], ["cctv_submittals.id"],
                                name=op.f("fk_cctv_certificates_submittal_id_cctv_submittals")),
        sa.ForeignKeyConstraint(["parcel_id"], ["parcels.id"], name=op.f("fk_cctv_certificates_parcel_id_parcels")),
        sa.ForeignKeyConstraint(["lateral_id"], ["laterals.id"], ondelete="SET NULL",
                                name=op.f("fk_cctv_certificates_lateral_id_laterals")),
        sa.ForeignKeyConstraint(["permit_id"], ["permits.id"], name=op.f("fk_cctv_certificates_permit_id_permits")),
        sa.ForeignKeyConstraint(["issued_by_id"], ["users.id"], name=op.f("fk_cctv_certificates_issued_by_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cctv_certificates")),
        sa.UniqueConstraint("submittal_id", name=op.f("uq_cctv_certificates_submittal_id")),
    )
    with op.batch_alter_table("cctv_certificates", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_cctv_certificates_parcel_id"), ["parcel_id"], unique=False)


def downgrade():
    op.drop_table("cctv_certificates")
    op.drop_table("cctv_observations")
    op.drop_table("cctv_submittals")
