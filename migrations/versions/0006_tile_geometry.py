"""parcels' geometry kept in web mercator on PostGIS, for map tiles

A generated column, ``geom_3857 = ST_Transform(geom, 3857)``, stored: a zoom-14 tile of
~3,000 parcels no longer reprojects each of them on each request. PostGIS only;
SpatiaLite encodes its tiles in Python and gets nothing. The models do not map the
column (nothing writes it) and autogenerate ignores it (migrations/env.py).

Revision ID: 0006_tile_geometry
Revises: 0005_violation_resolutions
"""
from alembic import op

from server.core.dialects import WEB_MERCATOR_TABLES, add_web_mercator_copy, drop_web_mercator_copy

# revision identifiers, used by Alembic.
revision = "0006_tile_geometry"
down_revision = "0005_violation_resolutions"
branch_labels = None
depends_on = None


def upgrade():
    bind = op.get_bind()
    for table in WEB_MERCATOR_TABLES:
        for statement in add_web_mercator_copy(bind, table):
            op.execute(statement)


def downgrade():
    bind = op.get_bind()
    for table in WEB_MERCATOR_TABLES:
        for statement in drop_web_mercator_copy(bind, table):
            op.execute(statement)
