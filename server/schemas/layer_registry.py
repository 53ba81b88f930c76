"""Wire contract of ``GET /api/v1/layers``: the public part of each ``server.layers.Layer``.

What a client needs to draw and edit a layer without hard-coding it: its URL name,
geometry, properties and filters, who may write it, whether a field device pulls it and
which properties the field app's correction form offers, and its map style. The model,
the rules engine's input and the demo part stay on the server.
"""

from __future__ import annotations

from marshmallow import Schema, fields


class MapStyleOut(Schema):
    label = fields.String(required=True)
    colour = fields.String(required=True, metadata={"description": "#rrggbb"})
    kind = fields.String(required=True, metadata={"description": "area, line, dash (a dashed line) or point"})
    on = fields.Boolean(required=True, metadata={"description": "drawn when the survey map opens"})
    z = fields.Integer(required=True, metadata={"description": "drawing order, bottom (low) to top"})


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
