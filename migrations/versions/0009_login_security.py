"""login security: a per-user session version and the database's own settings

``users.session_version`` is copied into each login's cookie and into the HTTP Basic
cache; logging out, a password change or disabling the user bumps it, so every older
cookie and cached credential stops working at once, on every worker and host.

``site_settings`` holds facts about the database itself, such as ``demo`` (set by
``flask demo seed``: this database holds the synthetic city and its published logins).

Revision ID: 0009_login_security
Revises: 0008_audit_chain
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0009_login_security"
down_revision = "0008_audit_chain"
branch_labels = None
depends_on = None


def upgrade():
    op.execute(sa.text("ALTER TABLE users ADD COLUMN session_version INTEGER DEFAULT 0 NOT NULL"))
    op.create_table(
        "site_settings",
        sa.Column("key", sa.String(80), nullable=False),
        sa.Column("value", sa.String(400), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_site_settings")),
    )


def downgrade():
    op.drop_table("site_settings")
    op.drop_column("users", "session_version")
