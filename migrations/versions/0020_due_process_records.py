"""due process records: a mailing printed before it is recorded, voided the same day (issue 29)

A mailing batch is made when its letters and PS 3877 book are printed (``printed_on``, by
whom, which notices); ``mailed_on`` stays empty until the clerk records the trip to the post
office, and a recording made by mistake is voided the same day with a reason.

Each certification of the clear-water survey is kept as issued (``issued_certifications``:
its PDF, SHA-256 and listed parcels), and the Commission's receipt names it.

A decision letter's return receipt is tracked as a notice's (delivered, refused or
unclaimed, and the day it served the decision).

Revision ID: 0020_due_process_records
Revises: 0019_portal
"""
import sqlalchemy as sa
from alembic import op

from server.core.dialects import drop_write_once_trigger, write_once_trigger

# revision identifiers, used by Alembic.
revision = "0020_due_process_records"
down_revision = "0019_portal"
branch_labels = None
depends_on = None

LETTER = ("letter_pdf", "letter_sha256", "article_number", "mailed_on")  # as 0004_notices
#: A printed letter may be printed again until its mailing is recorded; from then on its
#: PDF, hash and article number are written once, and ``mailed_on`` may only be emptied
#: (a recording voided the day it was made), never changed to another day.
RECORDED_LETTER = ("letter_pdf", "letter_sha256", "article_number")


def _letter_guard(old_guard: str, new_guard: str, columns: tuple[str, ...], clearable: tuple[str, ...]) -> None:
    for ddl in drop_write_once_trigger(op.get_bind(), "notices", old_guard):
        op.execute(ddl)
    for ddl in write_once_trigger(op.get_bind(), "notices", new_guard, columns, clearable):
        op.execute(ddl)


def upgrade():
    _letter_guard("letter_sha256", "mailed_on", RECORDED_LETTER, ("mailed_on",))
    op.create_table(
        "issued_certifications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("certified_on", sa.Date(), nullable=False),
        sa.Column("certified_by_id", sa.Integer(), nullable=True),
        sa.Column("signed_as", sa.Text(), nullable=False),
        sa.Column("parcels", sa.JSON(), nullable=False),
        sa.Column("pdf_sha256", sa.String(length=64), nullable=False),
        sa.Column("pdf", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["certified_by_id"], ["users.id"],
                                name=op.f("fk_issued_certifications_certified_by_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_issued_certifications")),
        sa.UniqueConstraint("pdf_sha256", name=op.f("uq_issued_certifications_pdf_sha256")),
    )
    with op.batch_alter_table("notice_appeals", schema=None) as batch_op:
        batch_op.add_column(sa.Column("letter_delivery_event", sa.String(length=10), nullable=True))
        batch_op.add_column(sa.Column("letter_delivery_event_on", sa.Date(), nullable=True))
        batch_op.add_column(sa.Column("letter_served_on", sa.Date(), nullable=True))
    with op.batch_alter_table("survey_certifications", schema=None) as batch_op:
        batch_op.add_column(sa.Column("certification_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("certification_sha256", sa.String(length=64), nullable=True))
        batch_op.create_foreign_key(batch_op.f("fk_survey_certifications_certification_id_issued_certifications"),
                                    "issued_certifications", ["certification_id"], ["id"])
        batch_op.create_index(batch_op.f("ix_survey_certifications_certification_id"), ["certification_id"],
                              unique=False)
    with op.batch_alter_table("mailing_batches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("printed_on", sa.Date(), nullable=True))
        batch_op.add_column(sa.Column("printed_by_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("notice_ids", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("dated_on", sa.Date(), nullable=True))
        batch_op.add_column(sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("voided_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("voided_by_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("void_reason", sa.Text(), nullable=True))
        batch_op.create_foreign_key(batch_op.f("fk_mailing_batches_printed_by_id_users"), "users",
                                    ["printed_by_id"], ["id"])
        batch_op.create_foreign_key(batch_op.f("fk_mailing_batches_voided_by_id_users"), "users",
                                    ["voided_by_id"], ["id"])
    # Batches mailed before this revision were printed and recorded in one step.
    op.execute("UPDATE mailing_batches SET printed_on = mailed_on, dated_on = mailed_on, recorded_at = created_at, "
               "printed_by_id = mailed_by_id")
    with op.batch_alter_table("mailing_batches", schema=None) as batch_op:
        batch_op.alter_column("printed_on", existing_type=sa.Date(), nullable=False)
        batch_op.alter_column("dated_on", existing_type=sa.Date(), nullable=False)
        batch_op.alter_column("mailed_on", existing_type=sa.Date(), nullable=True)


def downgrade():
    with op.batch_alter_table("survey_certifications", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_survey_certifications_certification_id"))
        batch_op.drop_constraint(batch_op.f("fk_survey_certifications_certification_id_issued_certifications"),
                                 type_="foreignkey")
        batch_op.drop_column("certification_sha256")
        batch_op.drop_column("certification_id")
    op.drop_table("issued_certifications")
    with op.batch_alter_table("notice_appeals", schema=None) as batch_op:
        for column in ("letter_served_on", "letter_delivery_event_on", "letter_delivery_event"):
            batch_op.drop_column(column)
    _letter_guard("mailed_on", "letter_sha256", LETTER, ())
    op.execute("UPDATE notices SET batch_id = NULL WHERE batch_id IN "
               "(SELECT id FROM mailing_batches WHERE mailed_on IS NULL)")
    op.execute("DELETE FROM mailing_batches WHERE mailed_on IS NULL")
    with op.batch_alter_table("mailing_batches", schema=None) as batch_op:
        batch_op.alter_column("mailed_on", existing_type=sa.Date(), nullable=False)
        batch_op.drop_constraint(batch_op.f("fk_mailing_batches_voided_by_id_users"), type_="foreignkey")
        batch_op.drop_constraint(batch_op.f("fk_mailing_batches_printed_by_id_users"), type_="foreignkey")
        for column in ("void_reason", "voided_by_id", "voided_at", "recorded_at", "dated_on", "notice_ids",
                       "printed_by_id", "printed_on"):
            batch_op.drop_column(column)
