"""the election calendar the clerk keeps (issue 14: the calendar's law)

Special elections the clerk records (legal holidays under § 995.20 that cannot be
computed) and the day the calendar is checked through.

Revision ID: 0007_election_calendar
Revises: 0006_tile_geometry
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0007_election_calendar"
down_revision = "0006_tile_geometry"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "election_calendar_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("recorded_by_id", sa.Integer(), nullable=True),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IS NULL OR kind IN ('special_election', 'checked_through')",
                           name=op.f("ck_election_calendar_entries_kind")),
        sa.ForeignKeyConstraint(["recorded_by_id"], ["users.id"],
                                name=op.f("fk_election_calendar_entries_recorded_by_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_election_calendar_entries")),
    )
    op.create_index(op.f("ix_election_calendar_entries_day"), "election_calendar_entries", ["day"])


def downgrade():
    op.drop_index(op.f("ix_election_calendar_entries_day"), table_name="election_calendar_entries")
    op.drop_table("election_calendar_entries")
