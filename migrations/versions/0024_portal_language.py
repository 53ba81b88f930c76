"""the language an owner read the portal in, for the emails that follow (issue 33)

Each portal action keeps the language of the pages it was sent from (``en`` or ``es``),
so that the emails about it (received, reviewed, a visit set, the appeal decided) are
written in it. Rows from before are English.

Revision ID: 0024_portal_language
Revises: 0023_cctv_submittals
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0024_portal_language"
down_revision = "0023_cctv_submittals"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("portal_actions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("language", sa.String(length=8), nullable=False, server_default="en"))


def downgrade():
    with op.batch_alter_table("portal_actions", schema=None) as batch_op:
        batch_op.drop_column("language")
