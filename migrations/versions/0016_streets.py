"""streets: the city's street centrelines, with names and address ranges (issue 34)

Maps label them, address search frames a street or a block with them, and field
devices pull them to find their way offline.

Revision ID: 0016_streets
Revises: 0015_permits
"""
import sqlalchemy as sa
from alembic import op
from geoalchemy2 import Geometry

# revision identifiers, used by Alembic.
revision = "0016_streets"
down_revision = "0015_permits"
branch_labels = None
depends_on = None


def upgrade():
    op.create_geospatial_table('streets',
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('left_from', sa.Integer(), nullable=True),
    sa.Column('left_to', sa.Integer(), nullable=True),
    sa.Column('right_from', sa.Integer(), nullable=True),
    sa.Column('right_to', sa.Integer(), nullable=True),
    sa.Column('geom', Geometry(geometry_type='LINESTRING', srid=4326, dimension=2, spatial_index=False, from_text='ST_GeomFromEWKT', name='geometry', nullable=False), nullable=False),
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_streets'))
    )
    with op.batch_alter_table('streets', schema=None) as batch_op:
        batch_op.create_geospatial_index('idx_streets_geom', ['geom'], unique=False, postgresql_using='gist', postgresql_ops={})
        batch_op.create_index(batch_op.f('ix_streets_name'), ['name'], unique=False)


def downgrade():
    with op.batch_alter_table('streets', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_streets_name'))
        batch_op.drop_geospatial_index('idx_streets_geom', postgresql_using='gist', column_name='geom')
    op.drop_geospatial_table('streets')
