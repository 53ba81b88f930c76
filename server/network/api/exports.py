"""Downloads of whole layers (or a bbox of one) as GIS files."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from flask import request, send_file
from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, ValidationError

from server.core.access import SIGNED_IN, access
from server.core.errors import LateralError, invalid_fields
from server.network import exports as service
from server.network.api.features import BBox
from server.network.layers import LAYERS

blp = Blueprint("exports", __name__, url_prefix="/api/v1/exports",
                description="Layers as GeoPackage, zipped Shapefile, CSV (WKT geometry) or GeoJSON")


class ExportQuery(Schema):
    class Meta:
        unknown = RAISE

    bbox = BBox(metadata={"description": "only features intersecting minLon,minLat,maxLon,maxLat"})


def _split(filename: str):
    name, _, suffix = filename.partition(".")
    layer = LAYERS.get(name)
    if layer is None:
        raise LateralError("not_found", f"no layer {name!r}", {"layers": list(LAYERS)})
    if suffix not in service.FORMATS:
        raise LateralError("not_found", f"no export format {suffix!r}", {"formats": list(service.FORMATS)})
    return layer, suffix


@blp.route("/<filename>", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(parameters=[{"in": "query", "schema": ExportQuery}],
         responses={200: {"description": "the file, e.g. parcels.gpkg, mains.shp.zip, taps.csv, findings.geojson"}})
def export(filename: str):
    """One layer as a file: `<layer>.gpkg`, `.shp.zip`, `.csv` or `.geojson`."""
    layer, suffix = _split(filename)
    try:
        args = ExportQuery().load(request.args.to_dict())
    except ValidationError as exc:
        raise invalid_fields(exc.messages, prefix="query") from None
    tmp = Path(tempfile.mkdtemp(prefix="lateral-export-"))
    try:
        path = tmp / filename
        service.write_export(layer, suffix, path, args.get("bbox"))
        response = send_file(path, mimetype=service.FORMATS[suffix].media_type, as_attachment=True,
                             download_name=filename)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    response.call_on_close(lambda: shutil.rmtree(tmp, ignore_errors=True))
    return response


def register(api, app) -> None:
    api.register_blueprint(blp)
