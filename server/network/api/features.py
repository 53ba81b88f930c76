"""The feature layers' routes: GeoJSON in and out, bbox, filters, paging, ETags.

One set of views serves every layer in ``server.network.layers.LAYERS``; each layer gets its
own blueprint so the OpenAPI document lists it by name. Anyone logged in reads a layer;
its ``write_roles`` write it, and where its authors own their features
(``authors_own``), the others among them change only their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Response, request, url_for
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, ValidationError, fields, validate

from server.core.access import SIGNED_IN, access
from server.core.accounts.authenticate import current_user
from server.core.errors import LateralError, invalid_fields
from server.core.web.body import load_json
from server.core.web.compression import strip_encoding
from server.core.web.paging import cursor_field, next_url, page_start
from server.core.web.transaction import write_transaction
from server.network import features as service
from server.network.geojson import FeatureCollectionOut, FeatureIn, FeatureOut, FeaturePatch, collection_text
from server.network.layers import LAYERS, Layer

GEOJSON = "application/geo+json"
V = TypeVar("V", bound=Callable[..., Any])


class BBox(fields.Field):
    """``minLon,minLat,maxLon,maxLat`` in WGS 84."""

    def _deserialize(self, value, attr, data, **kwargs):
        try:
            parts = [float(p) for p in str(value).split(",")]
        except ValueError:
            raise ValidationError("bbox must be four numbers: minLon,minLat,maxLon,maxLat") from None
        if len(parts) != 4:
            raise ValidationError("bbox must be four numbers: minLon,minLat,maxLon,maxLat")
        minx, miny, maxx, maxy = parts
        if not (-180 <= minx <= maxx <= 180 and -90 <= miny <= maxy <= 90):
            raise ValidationError("bbox must be minLon,minLat,maxLon,maxLat within -180..180, -90..90")
        return minx, miny, maxx, maxy


def list_query_schema(layer: Layer, page_max: int) -> type[Schema]:
    """Query parameters of a layer's list: bbox, limit, cursor (or after), and its attribute filters."""
    props = layer.properties().fields
    attrs = {
        "Meta": type("Meta", (), {"unknown": RAISE}),
        "bbox": BBox(metadata={"description": "minLon,minLat,maxLon,maxLat (WGS 84)"}),
        "limit": fields.Integer(validate=validate.Range(min=1, max=page_max)),
        "cursor": cursor_field(),
        "after": fields.Integer(metadata={
            "description": "the id after which the page starts (older clients; the `next` link carries `cursor`)"}),
    }
    for name in layer.filters:
        field = props[name]
        attrs[name] = type(field)(metadata={"description": f"only features whose {name} equals this"})
    return type(f"{layer.subject.title().replace('_', '')}ListQuery", (Schema,), attrs)


def _if_match() -> int:
    header = request.headers.get("If-Match")
    if not header:
        raise LateralError(
            "precondition_required",
            "send If-Match with the ETag you read, so nobody's change is silently overwritten",
        )
    value = header.strip()
    if value.startswith("W/"):
        value = value[2:]
    value = strip_encoding(value.strip('"'))
    try:
        return int(value)
    except ValueError:
        raise LateralError("version_conflict", f"If-Match {header!r} is not an ETag this server issued") from None


def _geojson(text: str, status: int = 200, version: int | None = None, location: str | None = None) -> Response:
    response = Response(text, status=status, mimetype=GEOJSON)
    if version is not None:
        response.set_etag(str(version))
    if location:
        response.headers["Location"] = location
    return response


def page_response(page: service.Page, endpoint: str, limit: int) -> Response:
    """A FeatureCollection page with ``self`` and ``next`` links (and a Link header).

    The ``next`` link keeps the request's filters and carries the page's cursor; it is
    there exactly while features follow this page (a last page of exactly ``limit``
    features has none), so a client follows it until it is absent.
    """
    links = [{"rel": "self", "href": request.url, "type": GEOJSON}]
    if page.next_after is not None:
        links.append({"rel": "next", "href": next_url(endpoint, page.next_after, limit), "type": GEOJSON})
    response = _geojson(collection_text(page.features, links))
    if page.next_after is not None:
        response.headers["Link"] = f'<{links[-1]["href"]}>; rel="next"'
    return response


def _feature_body(schema: Schema) -> dict:
    return load_json(schema)


def doc_schemas(layer: Layer) -> tuple[type, type, type, type]:
    """Per-layer Feature schemas for the OpenAPI document: the properties spelled out."""
    name = layer.subject.title().replace("_", "")
    props = fields.Nested(layer.properties)
    partial = fields.Dict(metadata={"description": f"changed properties only (any of {name}Feature's)"})
    out = type(f"{name}Feature", (FeatureOut,), {"properties": props})
    new = type(f"{name}FeatureIn", (FeatureIn,), {"properties": fields.Nested(layer.properties, required=True)})
    patch = type(f"{name}FeaturePatch", (FeaturePatch,), {"properties": partial})
    coll = type(f"{name}Collection", (FeatureCollectionOut,), {"features": fields.List(fields.Nested(out))})
    return out, new, patch, coll


def item_writers(layer: Layer) -> Callable[[V], V]:
    """The access of a change to one feature: its writers, who may be held to their own."""
    own = layer.authors_own
    if own is None:
        return access(layer.write_roles)
    return access(layer.write_roles, own=own.says, own_roles=layer.write_roles - own.edit_any)


def make_blueprint(layer: Layer, page_default: int, page_max: int) -> Blueprint:
    blp = Blueprint(layer.name, __name__, url_prefix=f"/api/v1/{layer.name}", description=f"{layer.title} (GeoJSON)")
    query_schema = list_query_schema(layer, page_max)
    out_doc, in_doc, patch_doc, coll_doc = doc_schemas(layer)
    collection_doc = {"content": {GEOJSON: {"schema": coll_doc}}}

    @blp.route("")
    class Collection(MethodView):
        @access(SIGNED_IN)
        @blp.doc(parameters=[{"in": "query", "schema": query_schema}],
                 responses={200: {"description": "a FeatureCollection page", **collection_doc}})
        def get(self):
            """List features: bbox, attribute filters and paging with a `next` link."""
            try:
                args = query_schema().load(request.args.to_dict())
            except ValidationError as exc:
                raise invalid_fields(exc.messages, prefix="query") from None
            limit = args.pop("limit", page_default)
            after = page_start(args)
            bbox = args.pop("bbox", None)
            page = service.list_features(layer, bbox=bbox, filters=args, limit=limit, after=after, as_array=True)
            return page_response(page, f"{layer.name}.Collection", limit)

        @access(layer.write_roles)
        @blp.doc(requestBody={"content": {GEOJSON: {"schema": in_doc}}},
                 responses={201: {"description": "the stored Feature", "content": {GEOJSON: {"schema": out_doc}}}})
        @write_transaction
        def post(self):
            """Add a feature. Properties follow this layer's contract."""
            body = _feature_body(FeatureIn())
            text, fid, version = service.create_feature(layer, body["geometry"], body["properties"], current_user())
            location = url_for(f"{layer.name}.Item", fid=fid, _external=True)
            return _geojson(text, 201, version, location)

    @blp.route("/<int:fid>")
    class Item(MethodView):
        @access(SIGNED_IN)
        @blp.doc(responses={200: {"description": "one Feature; ETag carries its version",
                                  "content": {GEOJSON: {"schema": out_doc}}}})
        def get(self, fid: int):
            """One feature, with its version as the ETag."""
            text, version = service.feature_text_by_id(layer, fid)
            return _geojson(text, 200, version)

        @item_writers(layer)
        @blp.doc(requestBody={"content": {GEOJSON: {"schema": patch_doc}}},
                 parameters=[{"in": "header", "name": "If-Match", "required": True, "schema": {"type": "string"}}])
        @write_transaction
        def patch(self, fid: int):
            """Change some properties and/or the geometry. Needs If-Match: a stale ETag gets 412."""
            expected = _if_match()
            body = _feature_body(FeaturePatch())
            if body.get("id") not in (None, fid):
                raise invalid_fields({"id": [f"does not match the URL's id {fid}"]})
            text, version = service.update_feature(
                layer, fid, expected, body.get("geometry"), body.get("properties"), current_user()
            )
            return _geojson(text, 200, version)

        @item_writers(layer)
        @blp.doc(parameters=[{"in": "header", "name": "If-Match", "required": True, "schema": {"type": "string"}}])
        @write_transaction
        def delete(self, fid: int):
            """Delete a feature. Needs If-Match: a stale ETag gets 412."""
            service.delete_feature(layer, fid, _if_match(), current_user())
            return Response(status=204)

    return blp


def register(api, app) -> None:
    for layer in LAYERS.values():
        api.register_blueprint(
            make_blueprint(layer, app.config["LATERAL_PAGE_DEFAULT"], app.config["LATERAL_PAGE_MAX"]))
