"""each layer's feature count and write version, kept by triggers; the job queue's jobs (issue #35)

``layer_counts`` holds one row per layer table: how many features it has and a version
that every write raises. Triggers on each table keep it, so an edit made outside
Lateral (``psql``, ``sqlite3``, a bulk load) counts too: on SQLite they move the row
itself; on PostgreSQL a statement-level trigger appends to ``layer_count_deltas``, which
the write path folds in (``server/core/dialects/common.py`` says why). The first page
of an unfiltered ``/ogc`` layer reads its ``numberMatched`` here, and the tile cache
keys on the version. ``jobs`` holds the job queue's jobs (server/core/queue/).

SQLite drops a table's triggers when batch mode copies the table: a later migration
that alters one of these tables in batch mode makes its triggers again.

Revision ID: 0017_layer_counts
Revises: 0016_streets
"""
import sqlalchemy as sa
from alembic import op

from server.core.dialects import drop_layer_count_triggers, layer_count_triggers

# revision identifiers, used by Alembic.
revision = "0017_layer_counts"
down_revision = "0016_streets"
branch_labels = None
depends_on = None

# The layer tables of server/network/layers.py at this revision.
COUNTED_TABLES = ("parcels", "sewer_mains", "manholes", "laterals", "taps", "tracer_wires", "service_areas",
                  "clear_water_findings", "streets")


def upgrade():
    op.create_table(
        "layer_counts",
        sa.Column("table_name", sa.String(length=63), nullable=False),
        sa.Column("features", sa.BigInteger(), nullable=False),
        sa.Column("write_version", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("table_name", name=op.f("pk_layer_counts")),
    )
    op.create_table(
        "layer_count_deltas",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_name", sa.String(length=63), nullable=False),
        sa.Column("features", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_layer_count_deltas")),
    )
    with op.batch_alter_table("layer_count_deltas", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_layer_count_deltas_table_name"), ["table_name"], unique=False)
    op.create_table(
        "jobs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.CheckConstraint("state IS NULL OR state IN ('queued', 'done', 'failed')", name=op.f("ck_jobs_state")),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_jobs_user_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
    )
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_jobs_state"), ["state"], unique=False)
    bind = op.get_bind()
    for table in COUNTED_TABLES:
        op.execute(f"INSERT INTO layer_counts (table_name, features, write_version) "
                   f"SELECT '{table}', count(*), 0 FROM {table}")
        for statement in layer_count_triggers(bind, table):
            op.execute(statement)


def downgrade():
    bind = op.get_bind()
    for table in COUNTED_TABLES:
        for statement in drop_layer_count_triggers(bind, table):
            op.execute(statement)
    with op.batch_alter_table("layer_count_deltas", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_layer_count_deltas_table_name"))
    op.drop_table("layer_count_deltas")
    op.drop_table("layer_counts")
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_jobs_state"))
    op.drop_table("jobs")
