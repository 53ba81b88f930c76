"""The API definition of ``/ogc``: an OpenAPI 3.0 document built from the layer registry.

OGC API – Features asks the landing page to link its API definition (``/req/core/root-success``)
and the "OpenAPI 3.0" class (``/req/oas30/*``) that it be valid OpenAPI 3.0, list every status
and response the server uses, and document the security schemes. apispec assembles it.

Each layer gets its own paths (``/collections/parcels/items`` …), as in the standard's
second example, so that its attribute filters and its features' properties can be spelled
out. The marshmallow plugin converts the layer's properties schema into its features'
schema, and the items query schema the items view parses with (``server.network.ogc.query``) into
the query parameters. GDAL reads those parameters to send a ``-where`` on one of them to
the server instead of filtering every feature itself.
"""

from __future__ import annotations

import functools
import json

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema

from server.network.api.features import BBox
from server.network.layers import LAYERS, Layer
from server.network.ogc.documents import CRS84, GEOJSON, HTML, JSON, OPENAPI
from server.network.ogc.query import FormatQuery, collection_query, items_query
from server.network.sources import Source

OPENAPI_VERSION = "3.0.3"

# Coordinates of each GeoJSON geometry type: arrays nested this deep around a position.
_NESTING = {"Point": 0, "MultiPoint": 1, "LineString": 1, "MultiLineString": 2, "Polygon": 2, "MultiPolygon": 3}

# Who may call: the same logins as the JSON API (server.core.accounts.authenticate); any one of them will do.
_SECURITY = {
    "bearer": {"type": "http", "scheme": "bearer",
               "description": "an API token, from POST /api/v1/auth/token"},
    "basic": {"type": "http", "scheme": "basic",
              "description": "a username and password on every request, for GIS clients that only know passwords"},
}


@functools.lru_cache(maxsize=8)
def definition_text(server: str, title: str, version: str, page_default: int, page_max: int,
                    session_cookie: str, sources: tuple[Source, ...] = ()) -> str:
    """The definition as JSON text; it only changes with the server's address and settings."""
    return json.dumps(definition(server, title, version, page_default, page_max, session_cookie, sources),
                      separators=(",", ":"))


def definition(server: str, title: str, version: str, page_default: int, page_max: int,
               session_cookie: str, sources: tuple[Source, ...] = ()) -> dict:
    """The OpenAPI 3.0 document of the OGC API served at ``server``.

    Args:
        server: the absolute URL of the landing page, without its trailing slash.
        title: the API's title.
        version: the API's version.
        page_default: ``limit`` when a request has none.
        page_max: the largest ``limit`` accepted.
        session_cookie: the name of the web session's cookie, which also logs a browser in.

    Returns:
        The document as a dict.
    """
    plugin = MarshmallowPlugin()
    spec = APISpec(
        title=f"{title} – OGC API – Features", version=version, openapi_version=OPENAPI_VERSION,
        plugins=[plugin], servers=[{"url": server}],
        info={"description": "Parcels, the sewer network and clear-water findings as OGC API – Features "
                             "(Part 1: Core). Every layer is a collection; every operation needs a login."},
        security=[{name: []} for name in (*_SECURITY, "session")],
        tags=[{"name": "Capabilities", "description": "what this API offers"},
              {"name": "Data", "description": "the features of each collection"}],
    )
    plugin.converter.add_attribute_function(_bbox_property)
    plugin.converter.add_parameter_attribute_function(_bbox_style)
    _security_schemes(spec, session_cookie)
    _document_schemas(spec)
    _shared_responses(spec, plugin)
    _capabilities(spec)
    for layer in LAYERS.values():
        _collection_paths(spec, plugin, layer, items_query(layer.name, page_default, page_max))
    for source in sources:  # collections other domains serve (server.network.sources)
        _collection_paths(spec, plugin, source, collection_query(source.properties, source.filters, page_default,
                                                                 page_max))
    return spec.to_dict()


def _schema_ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _camel(layer: Layer | Source) -> str:
    return "".join(part.capitalize() for part in layer.name.split("-"))


def _bbox_property(converter, field, **kwargs) -> dict:
    """A bbox is four numbers, not the free-form value apispec makes of an unknown field."""
    if isinstance(field, BBox):
        return {"type": "array", "minItems": 4, "maxItems": 4, "items": {"type": "number"}}
    return {}


def _bbox_style(converter, field, **kwargs) -> dict:
    """``bbox=1,2,3,4``: one comma-separated value, not ``bbox=1&bbox=2…``."""
    return {"style": "form", "explode": False} if isinstance(field, BBox) else {}


def _content(*media_types: str, schema: str | None = None) -> dict:
    """A response's ``content``: the JSON types share the ``schema`` component; HTML is a page."""
    return {media: {"schema": {"type": "string"} if media == HTML else schema or {"type": "object"}}
            for media in media_types}


def _security_schemes(spec: APISpec, session_cookie: str) -> None:
    for name, scheme in _SECURITY.items():
        spec.components.security_scheme(name, scheme)
    spec.components.security_scheme("session", {
        "type": "apiKey", "in": "cookie", "name": session_cookie,
        "description": "the web session, after logging in at /login (Swagger UI on /ogc/api?f=html uses it)",
    })


def _document_schemas(spec: APISpec) -> None:
    """The standard's documents (landing page, collections …), our error, and GeoJSON geometries."""
    components = spec.components
    link = {"type": "object", "required": ["href", "rel"], "properties": {
        "href": {"type": "string"}, "rel": {"type": "string"}, "type": {"type": "string"},
        "title": {"type": "string"}}}
    links = {"type": "array", "items": _schema_ref("link")}
    components.schema("link", link)
    components.schema("landingPage", {"type": "object", "required": ["links"], "properties": {
        "title": {"type": "string"}, "description": {"type": "string"}, "links": links}})
    components.schema("confClasses", {"type": "object", "required": ["conformsTo"], "properties": {
        "conformsTo": {"type": "array", "items": {"type": "string"}}}})
    components.schema("extent", {"type": "object", "properties": {"spatial": {"type": "object", "properties": {
        "bbox": {"type": "array", "minItems": 1, "items": {
            "type": "array", "minItems": 4, "maxItems": 4, "items": {"type": "number"}}},
        "crs": {"type": "string", "enum": [CRS84]}}}}})
    components.schema("collection", {"type": "object", "required": ["id", "links"], "properties": {
        "id": {"type": "string"}, "title": {"type": "string"}, "description": {"type": "string"},
        "links": links, "extent": _schema_ref("extent"), "itemType": {"type": "string", "enum": ["feature"]},
        "crs": {"type": "array", "items": {"type": "string"}}, "storageCrs": {"type": "string"}}})
    components.schema("collections", {"type": "object", "required": ["links", "collections"], "properties": {
        "links": links, "collections": {"type": "array", "items": _schema_ref("collection")}}})
    components.schema("exception", {
        "type": "object", "required": ["error"],
        "description": "Lateral's one error shape: a stable code, a message, and details naming what was wrong.",
        "properties": {"error": {"type": "object", "required": ["code", "message"], "properties": {
            "code": {"type": "string"}, "message": {"type": "string"}, "details": {"type": "object"}}}}})
    for kind in sorted({kind for layer in LAYERS.values() for kind in layer.geometry_types}):
        components.schema(f"{kind}GeoJSON", _geometry(kind))


def _shared_responses(spec: APISpec, plugin: MarshmallowPlugin) -> None:
    """The error answers every operation may give, and the parameters several share."""
    components = spec.components
    error = _content(JSON, schema="exception")
    components.response("InvalidParameter", {
        "description": "A query parameter is unknown or its value is invalid; `details` names it.",
        "content": error})
    components.response("Unauthorized", {
        "description": "No login, or a wrong one. `WWW-Authenticate` offers Bearer and Basic.",
        "headers": {"WWW-Authenticate": {"schema": {"type": "string"}}}, "content": error})
    components.response("NotFound", {"description": "No such feature.", "content": error})
    components.response("ServerError", {"description": "The server failed; the error was logged.",
                                        "content": error})
    components.response("LoginForm", {
        "description": "A browser asking for HTML without a session or credentials is sent to the login form.",
        "headers": {"Location": {"schema": {"type": "string"}}}})
    components.parameter("f", "query", plugin.converter.schema2parameters(FormatQuery, location="query")[0])
    components.parameter("featureId", "path", {
        "required": True, "schema": {"type": "string"}, "description": "the feature's id (an integer)"})


def _geometry(kind: str) -> dict:
    coordinates = {"type": "array", "minItems": 2, "items": {"type": "number"}}
    for _ in range(_NESTING[kind]):
        coordinates = {"type": "array", "items": coordinates}
    return {"type": "object", "required": ["type", "coordinates"], "properties": {
        "type": {"type": "string", "enum": [kind]}, "coordinates": coordinates}}


def _get(operation_id: str, summary: str, ok: dict, *, tag: str = "Data", parameters=("f",),
         not_found: bool = False) -> dict:
    """A GET operation with every status the server may answer it with."""
    responses = {"200": ok, "302": "LoginForm", "400": "InvalidParameter", "401": "Unauthorized",
                 "500": "ServerError"}
    if not_found:
        responses["404"] = "NotFound"
    return {"get": {"operationId": operation_id, "summary": summary, "tags": [tag],
                    "parameters": list(parameters), "responses": dict(sorted(responses.items()))}}


def _capabilities(spec: APISpec) -> None:
    spec.path("/", operations=_get("getLandingPage", "The landing page", {
        "description": "Links to the API definition, the conformance declaration and the collections.",
        "content": _content(JSON, HTML, schema="landingPage")}, tag="Capabilities"))
    spec.path("/api", operations=_get("getAPIDefinition", "This API definition", {
        "description": "The OpenAPI 3.0 document as JSON, or as a Swagger UI page.",
        "content": _content(OPENAPI, HTML)}, tag="Capabilities"))
    spec.path("/conformance", operations=_get("getConformanceDeclaration", "The conformance classes", {
        "description": "The OGC API – Features conformance classes this server implements.",
        "content": _content(JSON, HTML, schema="confClasses")}, tag="Capabilities"))
    spec.path("/collections", operations=_get("getCollections", "The feature collections", {
        "description": "Every layer, with its extent and a link to its items.",
        "content": _content(JSON, HTML, schema="collections")}))


def _limit_by_reference(spec: APISpec, parameters: list[dict]) -> list[dict | str]:
    """``limit`` as a reference to one shared parameter with its default and maximum.

    GDAL 3.8 and later (and so QGIS built on it) read the page size from an items path's
    ``$ref`` to a parameter named like ``limit``, taking its ``schema/default`` and
    ``schema/maximum``; an inline parameter is not looked at, and the client then walks
    the city 10 features a request.
    """
    out: list[dict | str] = []
    for param in parameters:
        if param.get("name") == "limit" and param.get("in") == "query":
            if "limit" not in spec.components.parameters:
                spec.components.parameter("limit", "query", {
                    k: v for k, v in param.items() if k not in ("name", "in")})
            out.append("limit")  # apispec turns a registered name into its $ref
        else:
            out.append(param)
    return out


def _collection_paths(spec: APISpec, plugin: MarshmallowPlugin, layer: Layer | Source, query: Schema) -> None:
    """The collection, its items and one item, with the layer's filters and feature schema."""
    camel, title = _camel(layer), layer.title
    spec.components.schema(f"{camel}Properties", schema=layer.properties)
    geometry = [_schema_ref(f"{kind}GeoJSON") for kind in layer.geometry_types]
    spec.components.schema(f"{camel}Feature", {
        "type": "object", "required": ["type", "id", "geometry", "properties"], "properties": {
            "type": {"type": "string", "enum": ["Feature"]},
            "id": {"type": "integer"},
            "geometry": geometry[0] if len(geometry) == 1 else {"oneOf": geometry},
            "properties": _schema_ref(f"{camel}Properties"),
            "links": {"type": "array", "items": _schema_ref("link")}}})
    spec.components.schema(f"{camel}Features", {
        "type": "object", "required": ["type", "features"], "properties": {
            "type": {"type": "string", "enum": ["FeatureCollection"]},
            "features": {"type": "array", "items": _schema_ref(f"{camel}Feature")},
            "links": {"type": "array", "items": _schema_ref("link")},
            "timeStamp": {"type": "string", "format": "date-time"},
            "numberMatched": {"type": "integer", "minimum": 0},
            "numberReturned": {"type": "integer", "minimum": 0}}})

    base = f"/collections/{layer.name}"
    spec.path(base, operations=_get(f"describe{camel}Collection", f"{title}: the collection", {
        "description": f"The {title.lower()} collection: its extent and a link to its items.",
        "content": _content(JSON, HTML, schema="collection")}))
    spec.path(f"{base}/items", operations=_get(
        f"get{camel}Features", f"{title}: a page of features", {
            "description": f"A page of {title.lower()}, with `numberMatched` (first and offset pages), "
                           "`numberReturned`, a `next` link (carrying a `cursor`) that keeps the filters, "
                           "and `prev` on a page asked for by `offset`.",
            "content": _content(GEOJSON, HTML, schema=f"{camel}Features")},
        parameters=_limit_by_reference(spec, plugin.converter.schema2parameters(query, location="query"))))
    spec.path(f"{base}/items/{{featureId}}", operations=_get(
        f"get{camel}Feature", f"{title}: one feature", {
            "description": "One feature; the `ETag` header carries its version.",
            "headers": {"ETag": {"schema": {"type": "string"}}},
            "content": _content(GEOJSON, HTML, schema=f"{camel}Feature")},
        parameters=("featureId", "f"), not_found=True))
