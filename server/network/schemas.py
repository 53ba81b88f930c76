"""Properties of each layer's GeoJSON features.

Fields without ``dump_only`` may be written by clients; ``dump_only`` ones are the
server's. Unknown fields are refused (422 naming the field) so nothing unexpected is
ever written.
"""

from __future__ import annotations

from marshmallow import RAISE, Schema, ValidationError, fields, validate

from server.core import city
from server.core.wire import UtcDateTime
from server.network.models import (
    CONNECTED,
    LATERAL_STATUSES,
    MAIN_KINDS,
    MANHOLE_KINDS,
    METHODS,
    SOURCES,
    TAP_METHODS,
    USER_CLASSES,
)

MATERIALS = ("PVC", "VCP", "DIP", "CIP", "HDPE", "RCP", "ABS", "ACP", "CMP", "OTHER")
ZIP = validate.Regexp(r"^\d{5}(-\d{4})?$", error="ZIP must be 12345 or 12345-6789")


def _not_after_today(day) -> None:
    """A day something was seen cannot be later than today on the city's calendar."""
    if day is not None and day > city.current().today():
        raise ValidationError(f"must not be after today ({city.current().today().isoformat()}) on the city's calendar")


def _text(length: int, **kw):
    return fields.String(validate=validate.Length(max=length), allow_none=True, **kw)


def _positive(**kw):
    return fields.Float(validate=validate.Range(min=0, min_inclusive=False), allow_none=True, **kw)


class PropertiesSchema(Schema):
    """Server-kept fields every feature carries."""

    class Meta:
        unknown = RAISE

    version = fields.Integer(dump_only=True)
    created_at = UtcDateTime(dump_only=True)
    updated_at = UtcDateTime(dump_only=True)


class ParcelProperties(PropertiesSchema):
    parcel_number = fields.String(required=True, validate=validate.Length(min=1, max=40))
    owner_name = _text(200)
    owner_name_2 = _text(200)
    mailing_street = _text(200)
    mailing_city = _text(100)
    mailing_state = fields.String(validate=validate.Regexp(r"^[A-Z]{2}$"), allow_none=True)
    mailing_zip = fields.String(validate=ZIP, allow_none=True)
    site_address = _text(200)
    user_class = fields.String(validate=validate.OneOf(USER_CLASSES), load_default="residential")
    has_building = fields.Boolean(load_default=True)
    in_service_area = fields.Boolean(load_default=True)
    has_septic = fields.Boolean(load_default=False)
    septic_approved = fields.Boolean(load_default=False)


class ServiceAreaProperties(PropertiesSchema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=200))


def _house_number(**kw):
    return fields.Integer(validate=validate.Range(min=0, max=999999), allow_none=True, **kw)


class StreetProperties(PropertiesSchema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=200),
                         metadata={"description": "as addresses write it: W Jackson St"})
    left_from = _house_number(metadata={"description": "first house number on the left, from the first vertex"})
    left_to = _house_number()
    right_from = _house_number()
    right_to = _house_number()


class ManholeProperties(PropertiesSchema):
    facility_id = _text(60)
    kind = fields.String(validate=validate.OneOf(MANHOLE_KINDS), load_default="manhole")
    rim_elev_ft = fields.Float(allow_none=True)


class SewerMainProperties(PropertiesSchema):
    facility_id = _text(60)
    material = fields.String(validate=validate.OneOf(MATERIALS), allow_none=True)
    diameter_in = _positive()
    segment_length_ft = _positive()
    kind = fields.String(validate=validate.OneOf(MAIN_KINDS), load_default="gravity")
    sdr = _positive()
    cover_ft = fields.Float(validate=validate.Range(min=0), allow_none=True)
    install_year = fields.Integer(validate=validate.Range(min=1850, max=2100), allow_none=True)
    from_manhole_id = fields.Integer(allow_none=True)
    to_manhole_id = fields.Integer(allow_none=True)


class LateralProperties(PropertiesSchema):
    parcel_id = fields.Integer(allow_none=True)
    material = fields.String(validate=validate.OneOf(MATERIALS), allow_none=True)
    sdr = _positive()
    diameter_in = _positive()
    installed_on = fields.Date(allow_none=True)
    backflow_valve = fields.Boolean(allow_none=True)
    status = fields.String(validate=validate.OneOf(LATERAL_STATUSES), load_default="active")
    is_new_or_replacement = fields.Boolean(allow_none=True)
    abandoned_on = fields.Date(allow_none=True, metadata={"description": "abandoned and capped (§ 315-12E); kept"})
    permit_number = _text(40)
    inspection_uuid = _text(36)


class TapProperties(PropertiesSchema):
    main_id = fields.Integer(allow_none=True)
    lateral_id = fields.Integer(allow_none=True)
    method = fields.String(validate=validate.OneOf(TAP_METHODS), allow_none=True)
    fitting_material = fields.String(validate=validate.OneOf(MATERIALS), allow_none=True)
    clock_position = fields.Float(
        validate=validate.Range(min=0, max=12, min_inclusive=False), allow_none=True,
        metadata={"description": "hours on a clock face looking downstream; 12 = crown, 10.5 = 10:30"},
    )
    installed_on = fields.Date(allow_none=True)
    permit_number = _text(40)
    inspection_uuid = _text(36)
    downstream_manhole_ft = fields.Float(validate=validate.Range(min=0), allow_none=True, metadata={
        "description": "measured in the trench: from the downstream manhole along the main, in feet"})


class TracerWireProperties(PropertiesSchema):
    lateral_id = fields.Integer(allow_none=True)
    gauge_awg = fields.Integer(validate=validate.Range(min=8, max=24), allow_none=True)
    in_conduit = fields.Boolean(allow_none=True)
    reaches_surface_at_wall = fields.Boolean(allow_none=True)
    permit_number = _text(40)
    inspection_uuid = _text(36)


class ClearWaterFindingProperties(PropertiesSchema):
    parcel_id = fields.Integer(allow_none=True)
    source = fields.String(required=True, validate=validate.OneOf(SOURCES))
    connected_to_sanitary = fields.String(validate=validate.OneOf(CONNECTED), load_default="unknown")
    observed_on = fields.Date(allow_none=True, validate=_not_after_today)
    observed_by = _text(120)
    method = fields.String(validate=validate.OneOf(METHODS), allow_none=True)
    notes = fields.String(validate=validate.Length(max=4000), allow_none=True)


# Wire contract of ``GET /api/v1/layers``: the public part of each ``server.network.layers.Layer``.
#
# What a client needs to draw and edit a layer without hard-coding it: its URL name,
# geometry, properties and filters, who may write it, whether a field device pulls it and
# which properties the field app's correction form offers, and its map style. The model,
# the rules engine's input and the demo part stay on the server.
class MapStyleOut(Schema):
    label = fields.String(required=True)
    colour = fields.String(required=True, metadata={"description": "#rrggbb"})
    kind = fields.String(required=True, metadata={"description": "area, line, dash (a dashed line) or point"})
    on = fields.Boolean(required=True, metadata={"description": "drawn when the survey map opens"})
    z = fields.Integer(required=True, metadata={"description": "drawing order, bottom (low) to top"})
    label_field = fields.String(allow_none=True,
                                metadata={"description": "the property written along each feature (a street's name)"})
    label_zoom = fields.Integer(required=True, metadata={"description": "the zoom level from which labels are written"})


class FieldInputOut(Schema):
    id = fields.String(required=True, metadata={"description": "the property"})
    prompt = fields.String(required=True)
    type = fields.String(required=True, metadata={"description": "number or bool"})
    min = fields.Float(allow_none=True)
    max = fields.Float(allow_none=True)
    step = fields.Float(allow_none=True)


class LayerOut(Schema):
    name = fields.String(required=True,
                         metadata={"description": "URL segment: /api/v1/<name>, /ogc/collections/<name>"})
    title = fields.String(required=True)
    subject = fields.String(required=True, metadata={"description": "singular, as audit rows and violations name it"})
    geometry_types = fields.List(fields.String(), required=True)
    properties = fields.List(fields.String(), required=True,
                             metadata={"description": "names in a Feature's properties"})
    filters = fields.List(fields.String(), required=True, metadata={"description": "query parameters of the listing"})
    write_roles = fields.List(fields.String(), required=True)
    checked_on_save = fields.Boolean(required=True, metadata={"description": "a write answers with `violations`"})
    pulled = fields.Boolean(required=True, metadata={"description": "field devices pull it (sync)"})
    field_editable = fields.Boolean(required=True, metadata={"description": "inspectors may send edits of it"})
    field_inputs = fields.List(fields.Nested(FieldInputOut), required=True)
    style = fields.Nested(MapStyleOut, allow_none=True)
