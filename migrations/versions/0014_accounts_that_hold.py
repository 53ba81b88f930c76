"""accounts that hold: shared failed-login counters; logins that must set a password (issue 30)

``login_failures`` holds one row per failed password check under each throttle key
(address, username and address, username), so every worker and host counts together.
``users.must_change_password`` marks a login made with a published password (the demo
city's): outside a demo database its first login must set a new one.

Revision ID: 0014_accounts_that_hold
Revises: 0013_due_process_gaps
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0014_accounts_that_hold"
down_revision = "0013_due_process_gaps"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "login_failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=300), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_failures")),
    )
    op.create_index("ix_login_failures_key_at", "login_failures", ["key", "at"])
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("must_change_password", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))


def downgrade():
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("must_change_password")
    op.drop_index("ix_login_failures_key_at", table_name="login_failures")
    op.drop_table("login_failures")
