"""each device's offline readiness, as its last sync reported it (issue 31)

A tablet whose browser would not install the field app's service worker (a certificate
it does not trust) cannot open the app without signal. Its sync says so, and the
superintendent sees it per device (``api_tokens``: one row a device).

Revision ID: 0018_operations_that_hold
Revises: 0017_layer_counts
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0018_operations_that_hold"
down_revision = "0017_layer_counts"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.add_column(sa.Column("offline_ready", sa.Boolean(), nullable=True))
        batch_op.add_column(sa.Column("offline_reason", sa.String(length=300), nullable=True))
        batch_op.add_column(sa.Column("offline_reported_at", sa.DateTime(timezone=True), nullable=True))


def downgrade():
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.drop_column("offline_reported_at")
        batch_op.drop_column("offline_reason")
        batch_op.drop_column("offline_ready")
