"""permits and their dated history; the as-built's provenance (issue 32, §§ 315-11 to 315-13)

``permits``: one permit for work on a parcel's connection (kind, applicant and the owner's
consent, the licensed plumber, wastes, connection kind and size, fees and payment, inside
the corporate limits, the Commission's approval, the inspection before backfill).
``permit_events``: each step, dated on the city's calendar. Laterals, taps and tracer
wires written by a passed inspection name the permit and the inspection they came from;
a lateral abandoned and capped (§ 315-12E) keeps the day.

Revision ID: 0015_permits
Revises: 0014_accounts_that_hold
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0015_permits'
down_revision = '0014_accounts_that_hold'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('permits',
    sa.Column('number', sa.String(length=20), nullable=True),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('state', sa.String(length=24), nullable=False),
    sa.Column('parcel_id', sa.Integer(), nullable=False),
    sa.Column('lateral_id', sa.Integer(), nullable=True),
    sa.Column('applied_on', sa.Date(), nullable=False),
    sa.Column('applicant_name', sa.String(length=200), nullable=False),
    sa.Column('applicant_phone', sa.String(length=40), nullable=True),
    sa.Column('applicant_email', sa.String(length=200), nullable=True),
    sa.Column('applicant_is_owner', sa.Boolean(), nullable=False),
    sa.Column('owner_consent_by', sa.String(length=200), nullable=True),
    sa.Column('owner_consent_on', sa.Date(), nullable=True),
    sa.Column('plumber_name', sa.String(length=200), nullable=False),
    sa.Column('plumber_license', sa.String(length=20), nullable=False),
    sa.Column('plumber_license_expires', sa.Date(), nullable=False),
    sa.Column('wastes', sa.Text(), nullable=False),
    sa.Column('connection_kind', sa.String(length=10), nullable=False),
    sa.Column('connection_size_in', sa.Float(), nullable=False),
    sa.Column('work_description', sa.Text(), nullable=True),
    sa.Column('inside_limits', sa.Boolean(), nullable=False),
    sa.Column('connected_by_cutoff', sa.Boolean(), nullable=False),
    sa.Column('surcharged', sa.Boolean(), nullable=False),
    sa.Column('fees', sa.JSON(), nullable=False),
    sa.Column('fee_total', sa.Numeric(precision=10, scale=2), nullable=False),
    sa.Column('paid', sa.Boolean(), nullable=False),
    sa.Column('paid_on', sa.Date(), nullable=True),
    sa.Column('receipt_number', sa.String(length=40), nullable=True),
    sa.Column('approval_basis', sa.String(length=12), nullable=True),
    sa.Column('commission_meeting_on', sa.Date(), nullable=True),
    sa.Column('delegation', sa.String(length=200), nullable=True),
    sa.Column('approved_on', sa.Date(), nullable=True),
    sa.Column('rejected_reason', sa.Text(), nullable=True),
    sa.Column('issued_on', sa.Date(), nullable=True),
    sa.Column('expires_on', sa.Date(), nullable=True),
    sa.Column('work_on', sa.Date(), nullable=True),
    sa.Column('frozen_override_reason', sa.Text(), nullable=True),
    sa.Column('inspection_earliest', sa.DateTime(timezone=True), nullable=True),
    sa.Column('inspection_contact', sa.String(length=200), nullable=True),
    sa.Column('inspection_requested_on', sa.Date(), nullable=True),
    sa.Column('assignment_id', sa.Integer(), nullable=True),
    sa.Column('inspected_on', sa.Date(), nullable=True),
    sa.Column('inspection_id', sa.Integer(), nullable=True),
    sa.Column('corrections', sa.JSON(), nullable=True),
    sa.Column('connected_on', sa.Date(), nullable=True),
    sa.Column('closed_on', sa.Date(), nullable=True),
    sa.Column('withdrawn_reason', sa.Text(), nullable=True),
    sa.Column('created_by_id', sa.Integer(), nullable=True),
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("approval_basis IS NULL OR approval_basis IN ('commission', 'delegation')", name=op.f('ck_permits_approval_basis')),
    sa.CheckConstraint("connection_kind IS NULL OR connection_kind IN ('gravity', 'pressure')", name=op.f('ck_permits_connection_kind')),
    sa.CheckConstraint("kind IS NULL OR kind IN ('new_connection', 'lateral_repair', 'tap', 'excavation', 'abandonment')", name=op.f('ck_permits_kind')),
    sa.CheckConstraint("state IS NULL OR state IN ('applied', 'under_review', 'approved', 'rejected', 'issued', 'scheduled', 'inspection_requested', 'passed', 'failed', 'connected', 'closed', 'expired', 'withdrawn')", name=op.f('ck_permits_state')),
    sa.ForeignKeyConstraint(['assignment_id'], ['assignments.id'], name=op.f('fk_permits_assignment_id_assignments'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['created_by_id'], ['users.id'], name=op.f('fk_permits_created_by_id_users')),
    sa.ForeignKeyConstraint(['inspection_id'], ['inspections.id'], name=op.f('fk_permits_inspection_id_inspections'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['lateral_id'], ['laterals.id'], name=op.f('fk_permits_lateral_id_laterals'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['parcel_id'], ['parcels.id'], name=op.f('fk_permits_parcel_id_parcels')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_permits')),
    sa.UniqueConstraint('number', name=op.f('uq_permits_number'))
    )
    with op.batch_alter_table('permits', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_permits_kind'), ['kind'], unique=False)
        batch_op.create_index(batch_op.f('ix_permits_parcel_id'), ['parcel_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_permits_plumber_license'), ['plumber_license'], unique=False)
        batch_op.create_index(batch_op.f('ix_permits_state'), ['state'], unique=False)
        batch_op.create_index('ix_permits_register', ['state', 'paid', 'fee_total'], unique=False)

    op.create_table('permit_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('permit_id', sa.Integer(), nullable=False),
    sa.Column('event', sa.String(length=24), nullable=False),
    sa.Column('from_state', sa.String(length=24), nullable=True),
    sa.Column('to_state', sa.String(length=24), nullable=False),
    sa.Column('on', sa.Date(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('actor_id', sa.Integer(), nullable=True),
    sa.Column('note', sa.Text(), nullable=True),
    sa.Column('data', sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(['actor_id'], ['users.id'], name=op.f('fk_permit_events_actor_id_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_permit_events_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_permit_events'))
    )
    with op.batch_alter_table('permit_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_permit_events_permit_id'), ['permit_id'], unique=False)

    with op.batch_alter_table('laterals', schema=None) as batch_op:
        batch_op.add_column(sa.Column('abandoned_on', sa.Date(), nullable=True))
        batch_op.add_column(sa.Column('permit_number', sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column('inspection_uuid', sa.String(length=36), nullable=True))

    with op.batch_alter_table('taps', schema=None) as batch_op:
        batch_op.add_column(sa.Column('inspection_uuid', sa.String(length=36), nullable=True))
        batch_op.add_column(sa.Column('downstream_manhole_ft', sa.Float(), nullable=True))

    with op.batch_alter_table('tracer_wires', schema=None) as batch_op:
        batch_op.add_column(sa.Column('permit_number', sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column('inspection_uuid', sa.String(length=36), nullable=True))



def downgrade():
    with op.batch_alter_table('tracer_wires', schema=None) as batch_op:
        batch_op.drop_column('inspection_uuid')
        batch_op.drop_column('permit_number')

    with op.batch_alter_table('taps', schema=None) as batch_op:
        batch_op.drop_column('downstream_manhole_ft')
        batch_op.drop_column('inspection_uuid')

    with op.batch_alter_table('laterals', schema=None) as batch_op:
        batch_op.drop_column('inspection_uuid')
        batch_op.drop_column('permit_number')
        batch_op.drop_column('abandoned_on')

    with op.batch_alter_table('permit_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_permit_events_permit_id'))

    op.drop_table('permit_events')
    with op.batch_alter_table('permits', schema=None) as batch_op:
        batch_op.drop_index('ix_permits_register')
        batch_op.drop_index(batch_op.f('ix_permits_state'))
        batch_op.drop_index(batch_op.f('ix_permits_plumber_license'))
        batch_op.drop_index(batch_op.f('ix_permits_parcel_id'))
        batch_op.drop_index(batch_op.f('ix_permits_kind'))

    op.drop_table('permits')
