"""notice kinds are declared in server/notices/kinds.py, not listed in the database

The CHECK on notices.kind listed the kinds, so adding one meant a table-rebuilding
migration. The model validates the kind against the registry instead (issue 14, How).

Revision ID: 0011_notice_kinds_registry
Revises: 0010_due_process
"""
import sqlalchemy as sa
from alembic import op

from server.core.dialects import drop_write_once_trigger, write_once_trigger

# revision identifiers, used by Alembic.
revision = "0011_notice_kinds_registry"
down_revision = "0010_due_process"
branch_labels = None
depends_on = None

LETTER = ("letter_pdf", "letter_sha256", "article_number", "mailed_on")  # as 0004_notices
KINDS_1 = ("CW-DISCONNECT-60", "CW-REMOVE-150", "HOOKUP-365", "HOOKUP-PENALTY", "SURVEY-ACCESS",
           "GENERAL-VIOLATION")


def _rebuilding(change) -> None:
    """Run ``change`` in batch mode; SpatiaLite rebuilds the table, which drops its
    triggers, so the mailed letter's write-once trigger is put back afterwards."""
    for ddl in drop_write_once_trigger(op.get_bind(), "notices", "letter_sha256"):
        op.execute(ddl)
    with op.batch_alter_table("notices", schema=None) as batch_op:
        change(batch_op)
    for ddl in write_once_trigger(op.get_bind(), "notices", "letter_sha256", LETTER):
        op.execute(ddl)


def upgrade():
    _rebuilding(lambda batch_op: batch_op.drop_constraint(op.f("ck_notices_kind"), type_="check"))


def downgrade():
    listed = ", ".join(f"'{k}'" for k in KINDS_1)
    _rebuilding(lambda batch_op: batch_op.create_check_constraint(
        op.f("ck_notices_kind"), sa.text(f"kind IS NULL OR kind IN ({listed})")))
