"""due process without gaps (issue 29)

``notice_appeals.late``: every written appeal is recorded with its filing date, one filed
after its 10 days flagged late; ``notice_appeals.heard``: whether the body heard a late
appeal (its decision says so); ``notice_appeals.letter_signed_by``: the named officer of
the deciding body who signs its decision letter.

Revision ID: 0013_due_process_gaps
Revises: 0012_sync_proposals
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0013_due_process_gaps"
down_revision = "0012_sync_proposals"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("notice_appeals", schema=None) as batch_op:
        batch_op.add_column(sa.Column("late", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("heard", sa.Boolean(), nullable=True))
        batch_op.add_column(sa.Column("letter_signed_by", sa.Text(), nullable=True))
    op.execute("UPDATE notice_appeals SET late = (filed_on > due_on)")


def downgrade():
    with op.batch_alter_table("notice_appeals", schema=None) as batch_op:
        batch_op.drop_column("letter_signed_by")
        batch_op.drop_column("heard")
        batch_op.drop_column("late")
