"""appeals and substitute service of notices, the Commission's receipt of the certified
survey (issue 14: due process to the end; SURVEY-NOTIFY-5)

Revision ID: 0010_due_process
Revises: 0009_login_security
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0010_due_process"
down_revision = "0009_login_security"
branch_labels = None
depends_on = None


def _user(column: str, table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([column], ["users.id"], name=op.f(f"fk_{table}_{column}_users"))


def upgrade():
    op.create_table(
        "notice_appeals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("notice_id", sa.Integer(), nullable=False),
        sa.Column("level", sa.String(length=12), nullable=False),
        sa.Column("filed_on", sa.Date(), nullable=False),
        sa.Column("due_on", sa.Date(), nullable=False),
        sa.Column("facts", sa.Text(), nullable=True),
        sa.Column("late_reason", sa.Text(), nullable=True),
        sa.Column("accepted_late_by_id", sa.Integer(), nullable=True),
        sa.Column("decide_by", sa.Date(), nullable=True),
        sa.Column("recorded_by_id", sa.Integer(), nullable=True),
        sa.Column("decision", sa.String(length=12), nullable=True),
        sa.Column("decided_on", sa.Date(), nullable=True),
        sa.Column("decision_terms", sa.Text(), nullable=True),
        sa.Column("comply_days", sa.Integer(), nullable=True),
        sa.Column("decision_recorded_by_id", sa.Integer(), nullable=True),
        sa.Column("letter_mailed_on", sa.Date(), nullable=True),
        sa.Column("letter_article_number", sa.String(length=34), nullable=True),
        sa.Column("letter_sha256", sa.String(length=64), nullable=True),
        sa.Column("letter_pdf", sa.LargeBinary(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("level IS NULL OR level IN ('commission', 'council')",
                           name=op.f("ck_notice_appeals_level")),
        sa.CheckConstraint("decision IS NULL OR decision IN ('upheld', 'overturned', 'modified')",
                           name=op.f("ck_notice_appeals_decision")),
        sa.ForeignKeyConstraint(["notice_id"], ["notices.id"], ondelete="CASCADE",
                                name=op.f("fk_notice_appeals_notice_id_notices")),
        _user("accepted_late_by_id", "notice_appeals"),
        _user("recorded_by_id", "notice_appeals"),
        _user("decision_recorded_by_id", "notice_appeals"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notice_appeals")),
        sa.UniqueConstraint("letter_article_number", name=op.f("uq_notice_appeals_letter_article_number")),
    )
    op.create_index(op.f("ix_notice_appeals_notice_id"), "notice_appeals", ["notice_id"])
    op.create_table(
        "notice_service_steps",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("notice_id", sa.Integer(), nullable=False),
        sa.Column("step", sa.String(length=24), nullable=False),
        sa.Column("done_on", sa.Date(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("recorded_by_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("step IS NULL OR step IN ('first_class_mailing', 'posting')",
                           name=op.f("ck_notice_service_steps_step")),
        sa.ForeignKeyConstraint(["notice_id"], ["notices.id"], ondelete="CASCADE",
                                name=op.f("fk_notice_service_steps_notice_id_notices")),
        _user("recorded_by_id", "notice_service_steps"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notice_service_steps")),
    )
    op.create_index(op.f("ix_notice_service_steps_notice_id"), "notice_service_steps", ["notice_id"])
    op.create_table(
        "survey_certifications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("certified_on", sa.Date(), nullable=False),
        sa.Column("received_on", sa.Date(), nullable=False),
        sa.Column("notify_by", sa.Date(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("recorded_by_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _user("recorded_by_id", "survey_certifications"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_survey_certifications")),
    )


def downgrade():
    op.drop_table("survey_certifications")
    op.drop_index(op.f("ix_notice_service_steps_notice_id"), table_name="notice_service_steps")
    op.drop_table("notice_service_steps")
    op.drop_index(op.f("ix_notice_appeals_notice_id"), table_name="notice_appeals")
    op.drop_table("notice_appeals")
