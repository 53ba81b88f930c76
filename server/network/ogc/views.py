"""Routes of the OGC API: parse, authorise, ask the feature service, shape JSON or HTML.

Every route is for anyone logged in; GIS clients log in with HTTP Basic or a token, and a
browser asking for the HTML pages is sent to the login form (``gis(bp, wants_html)``).
"""

from __future__ import annotations

import json
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    render_template,
    request,
    url_for,
)
from marshmallow import Schema, ValidationError

from server.core.access import SIGNED_IN, access, gis
from server.core.accounts.authenticate import current_user
from server.core.dialects import extent
from server.core.errors import LateralError, invalid_fields
from server.core.extensions import db
from server.core.web.inputs import INT_MAX
from server.core.web.paging import encode as encode_cursor
from server.network import features as service
from server.network.geojson import json_default
from server.network.layers import LAYERS, Layer
from server.network.ogc import documents as docs
from server.network.ogc import openapi
from server.network.ogc.query import CRS84_NAMES, FORMATS, collection_query, items_query
from server.network.sources import Source, sources

bp = Blueprint("ogc", __name__, url_prefix="/ogc", template_folder="templates")


def wants_html() -> bool:
    """Whether the caller is a browser asking for the HTML pages (the login form then)."""
    return _format() == "html"


def _format() -> str:
    """``f=json|html``, else the Accept header; JSON unless a browser asks for HTML."""
    asked = request.args.get("f")
    if asked is not None:
        if asked not in FORMATS:
            raise LateralError("invalid_parameter", f"f must be one of {', '.join(FORMATS)}",
                               {"field": "f", "allowed": list(FORMATS)})
        return asked
    best = request.accept_mimetypes.best_match([docs.GEOJSON, docs.JSON, docs.HTML], default=docs.JSON)
    return "html" if best == docs.HTML else "json"


# Read by GIS clients that hold a password; a browser asking for the pages gets the login form.
gis(bp, wants_html=wants_html)


def _url(path: str, **params) -> str:
    return docs.url_below(url_for("ogc.landing", _external=True))(path, **params)


def _layer(collection_id: str) -> Layer | Source:
    layer = LAYERS.get(collection_id) or sources().get(collection_id)
    if layer is None:
        raise LateralError("not_found", f"no collection {collection_id!r}",
                           {"collections": [*LAYERS, *sources()]})
    return layer


def _role() -> str | None:
    return getattr(current_user(), "role", None)


def _respond(doc: dict | str, template: str, media_type: str = docs.JSON, **context) -> Response:
    if _format() == "html":
        data = json.loads(doc) if isinstance(doc, str) else doc
        return Response(render_template(f"ogc/{template}", doc=data, **context), mimetype=docs.HTML)
    text = doc if isinstance(doc, str) else json.dumps(doc, separators=(",", ":"))
    return Response(text, mimetype=media_type)


@bp.route("/")
@access(SIGNED_IN)
def landing():
    return _respond(docs.landing(_url, current_app.config["API_TITLE"]), "landing.html")


@bp.route("/api")
@access(SIGNED_IN)
def api():
    """The API definition: OpenAPI 3.0 as JSON, or Swagger UI over it for a browser."""
    if _format() == "html":
        return Response(render_template("ogc/api.html", definition_url=_url("/api", f="json")), mimetype=docs.HTML)
    config = current_app.config
    text = openapi.definition_text(
        url_for("ogc.landing", _external=True).rstrip("/"), config["API_TITLE"], config["API_VERSION"],
        config["LATERAL_PAGE_DEFAULT"],
        config["LATERAL_PAGE_MAX"], config["SESSION_COOKIE_NAME"], tuple(sources().values()))
    return Response(text, content_type=docs.OPENAPI)


@bp.route("/conformance")
@access(SIGNED_IN)
def conformance():
    return _respond(docs.conformance(), "conformance.html")


def _collection_doc(layer: Layer | Source) -> dict:
    if isinstance(layer, Source):
        return docs.collection(_url, layer, layer.extent())
    return docs.collection(_url, layer, extent(db.session, layer.model))


@bp.route("/collections")
@access(SIGNED_IN)
def collections():
    entries = [_collection_doc(layer) for layer in LAYERS.values()]
    entries += [_collection_doc(source) for source in sources().values()]
    return _respond(docs.collections(_url, entries), "collections.html")


@bp.route("/collections/<collection_id>")
@access(SIGNED_IN)
def collection(collection_id: str):
    return _respond(_collection_doc(_layer(collection_id)), "collection.html")


def _items_schema(layer: Layer | Source) -> Schema:
    config = current_app.config
    if isinstance(layer, Source):
        return collection_query(layer.properties, layer.filters, config["LATERAL_PAGE_DEFAULT"],
                                config["LATERAL_PAGE_MAX"])
    return items_query(layer.name, config["LATERAL_PAGE_DEFAULT"], config["LATERAL_PAGE_MAX"])


def _invalid_parameter(messages: Any) -> LateralError:
    error = invalid_fields(messages, prefix="query")
    return LateralError("invalid_parameter", error.message, error.details)


def _number_matched(layer: Layer | Source, page: service.Page, bbox, filters: dict, after: int | None,
                    offset: int) -> int | None:
    """``numberMatched`` where it is cheap and exact: see docs/api.md, "Paging".

    A last page asked for without a cursor knows the number without counting (``offset``
    + what it holds). Another first page of a whole layer reads the count the layer's
    triggers keep (``server.network.counts``); of a box or filters, counts the matches
    (ids only) within ``LATERAL_OGC_COUNT_BUDGET_MS`` and leaves the number out past it.
    Pages reached by a cursor, and offset pages with more after them, leave it out, as
    OGC API – Features allows: a walk pays for one count, not one per page.
    """
    if after is None and page.next_after is None and (len(page.features) or not offset):
        return offset + len(page.features)
    if after is None and not offset:
        if isinstance(layer, Source):
            return layer.count(bbox, filters)
        budget = current_app.config["LATERAL_OGC_COUNT_BUDGET_MS"] / 1000
        return service.count_features(layer, bbox=bbox, filters=filters, budget=budget)
    return None


@bp.route("/collections/<collection_id>/items")
@access(SIGNED_IN)
def items(collection_id: str):
    """A page of features, its links and (on the first page) ``numberMatched``."""
    layer = _layer(collection_id)
    try:
        args = _items_schema(layer).load(request.args.to_dict())
    except ValidationError as exc:
        raise _invalid_parameter(exc.messages) from None
    for name in ("f", "crs", "bbox_crs"):  # CRS84 is the only one: nothing to transform
        args.pop(name, None)
    limit, offset, after = args.pop("limit"), args.pop("offset"), args.pop("cursor", None)
    if after is not None and offset:
        raise _invalid_parameter({"cursor": ["send cursor or offset, not both"]})
    bbox = args.pop("bbox", None)
    params = {k: v for k, v in request.args.items() if k not in ("limit", "offset", "cursor", "f")}
    if isinstance(layer, Source):
        found, next_after = layer.page(bbox, args, limit, after, offset, _role())
        page = service.Page([json.dumps(f, default=json_default, separators=(",", ":")) for f in found], next_after)
    else:
        page = service.list_features(layer, bbox=bbox, filters=args, limit=limit, after=after, offset=offset,
                                     as_array=True)
    next_cursor = None if page.next_after is None else encode_cursor(page.next_after)
    if after is not None:
        text = docs.walk_page_text(_url, layer.name, params, limit, request.args["cursor"], page.features,
                                   next_cursor)
    else:
        links = docs.page_links(_url, f"/collections/{layer.name}/items", params, limit, this={"offset": offset},
                                next_cursor=next_cursor, prev_offset=max(0, offset - limit) if offset else None)
        text = docs.items_text(page.features, links, _number_matched(layer, page, bbox, args, after, offset))
    response = _respond(text, "items.html", docs.GEOJSON, layer=layer, offset=offset if after is None else None)
    return _content_crs(response)


def _content_crs(response: Response) -> Response:
    """``Content-Crs`` on GeoJSON features, as Part 2 asks (``/req/crs/ogc-crs-header``)."""
    if response.mimetype == docs.GEOJSON:
        response.headers["Content-Crs"] = f"<{docs.CRS84}>"
    return response


@bp.route("/collections/<collection_id>/items/<fid>")
@access(SIGNED_IN)
def item(collection_id: str, fid: str):
    layer = _layer(collection_id)
    if not (fid.isascii() and fid.isdigit()):  # "²".isdigit() is true too
        raise LateralError("not_found", f"no {layer.subject.replace('_', ' ')} with id {fid}")
    if int(fid) > INT_MAX:
        raise invalid_fields({"fid": [f"must be between 0 and {INT_MAX}"]})
    crs = request.args.get("crs")
    if crs is not None and crs not in CRS84_NAMES:
        raise _invalid_parameter({"crs": [f"must be a CRS the collection lists: {docs.CRS84}"]})
    if isinstance(layer, Source):
        found = layer.item(int(fid), _role())
        if found is None:
            raise LateralError("not_found", f"no {layer.subject} with id {fid}")
        text, version = json.dumps(found[0], default=json_default, separators=(",", ":")), found[1]
    else:
        text, version = service.feature_text_by_id(layer, int(fid))
    response = _respond(docs.item_text(text, _url, layer, int(fid)), "item.html", docs.GEOJSON, layer=layer)
    response.set_etag(str(version))
    return _content_crs(response)
