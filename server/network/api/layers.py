"""``GET /api/v1/layers``: the layer registry's public part, for maps and the field app."""

from __future__ import annotations

from flask_smorest import Blueprint

from server.core.access import SIGNED_IN, access
from server.network.features import property_names
from server.network.layers import LAYERS
from server.network.schemas import LayerOut

blp = Blueprint("layers", __name__, url_prefix="/api/v1", description="The feature layers and how to draw them")


@blp.route("/layers", methods=["GET"])
@access(SIGNED_IN)
@blp.response(200, LayerOut(many=True))
def layers():
    """Every feature layer: geometry, properties, filters, who writes it, sync and map style."""
    return [{"name": layer.name, "title": layer.title, "subject": layer.subject,
             "geometry_types": list(layer.geometry_types), "properties": list(property_names(layer)),
             "filters": list(layer.filters), "write_roles": sorted(layer.write_roles),
             "checked_on_save": layer.checked_on_save, "pulled": layer.pulled,
             "field_editable": layer.field_editable, "field_inputs": layer.field_inputs,
             "style": layer.style} for layer in LAYERS.values()]
