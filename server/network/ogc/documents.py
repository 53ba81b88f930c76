"""The JSON documents of the OGC API: landing page, conformance, collections, pages.

Plain functions from values to dicts (or JSON text for feature pages, which arrive as
GeoJSON text from ``server.network.features``). ``url`` is a callable that builds an
absolute URL for a path below ``/ogc``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from urllib.parse import urlencode

from server.network.geojson import FeatureArray, array_text
from server.network.layers import Layer
from server.network.sources import Source

GEOJSON = "application/geo+json"
JSON = "application/json"
HTML = "text/html"
OPENAPI = "application/vnd.oai.openapi+json;version=3.0"
CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"

CONFORMANCE = [
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
    # Part 2, for the one CRS each collection lists: ``crs`` and ``bbox-crs`` are accepted
    # with CRS84 and answered with ``Content-Crs``; any other CRS is a 400.
    "http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs",
]

Url = Callable[..., str]


def url_below(base: str) -> Url:
    """The ``url`` callable for ``base`` (the landing page's absolute URL, ending in ``/``):
    a path below it with the query parameters that are not None."""
    def url(path: str, **params) -> str:
        given = {k: v for k, v in params.items() if v is not None}
        return base + path.lstrip("/") + ("?" + urlencode(given) if given else "")
    return url


def _link(href: str, rel: str, type_: str, title: str | None = None) -> dict:
    link = {"href": href, "rel": rel, "type": type_}
    if title:
        link["title"] = title
    return link


def self_links(url: Url, path: str, json_type: str = JSON) -> list[dict]:
    """``self`` as JSON and the ``alternate`` HTML page of the same resource."""
    return [_link(url(path, f="json"), "self", json_type, "this document"),
            _link(url(path, f="html"), "alternate", HTML, "this document as HTML")]


def landing(url: Url, title: str) -> dict:
    """The landing page: itself, the API definition (``service-desc``, ``service-doc``), conformance, data."""
    return {
        "title": title,
        "description": "Parcels, the sewer network and clear-water findings as OGC API – Features.",
        "links": self_links(url, "") + [
            _link(url("/api"), "service-desc", OPENAPI, "the API definition (OpenAPI 3.0)"),
            _link(url("/api", f="html"), "service-doc", HTML, "the API documentation"),
            _link(url("/conformance"), "conformance", JSON, "conformance classes"),
            _link(url("/collections"), "data", JSON, "feature collections"),
        ],
    }


def conformance() -> dict:
    return {"conformsTo": CONFORMANCE}


def collection(url: Url, layer: Layer | Source, bbox: tuple | None) -> dict:
    """One collection. The ``items`` link has no query string: GDAL appends ``/{id}`` to it."""
    doc = {
        "id": layer.name,
        "title": layer.title,
        "description": f"{layer.title}: {', '.join(layer.geometry_types)} features in WGS 84.",
        "itemType": "feature",
        "crs": [CRS84],
        "storageCrs": CRS84,
        "links": self_links(url, f"/collections/{layer.name}") + [
            _link(url(f"/collections/{layer.name}/items"), "items", GEOJSON, f"{layer.title} features"),
        ],
    }
    if bbox is not None:
        doc["extent"] = {"spatial": {"bbox": [list(bbox)], "crs": CRS84}}
    return doc


def collections(url: Url, entries: list[dict]) -> dict:
    return {"links": self_links(url, "/collections"), "collections": entries}


def page_links(url: Url, path: str, params: dict, limit: int, *, this: dict, next_cursor: str | None,
               prev_offset: int | None) -> list[dict]:
    """self/alternate, ``next`` while features follow (carrying the same filters and the
    page's cursor) and, on a page asked for by offset, ``prev``.

    ``this`` is what places this page (``{"offset": n}`` or ``{"cursor": …}``).
    """
    links = [
        _link(url(path, **params, **this, limit=limit, f="json"), "self", GEOJSON, "this page"),
        _link(url(path, **params, **this, limit=limit, f="html"), "alternate", HTML, "this page as HTML"),
    ]
    if next_cursor is not None:
        links.append(_link(url(path, **params, cursor=next_cursor, limit=limit), "next", GEOJSON, "next page"))
    if prev_offset is not None:
        links.append(_link(url(path, **params, offset=prev_offset, limit=limit), "prev", GEOJSON,
                           "previous page"))
    return links


def walk_page_text(url: Url, layer_name: str, params: dict, limit: int, cursor: str,
                   features: list[str] | FeatureArray, next_cursor: str | None) -> str:
    """A page asked for by its ``cursor``: no ``numberMatched``, no ``prev`` (see the items view)."""
    links = page_links(url, f"/collections/{layer_name}/items", params, limit, this={"cursor": cursor},
                       next_cursor=next_cursor, prev_offset=None)
    return items_text(features, links, None)


def items_text(features: list[str] | FeatureArray, links: list[dict], matched: int | None) -> str:
    """A FeatureCollection page as JSON text around the features' own GeoJSON text."""
    head = {"type": "FeatureCollection", "timeStamp": now()}
    if matched is not None:
        head["numberMatched"] = matched
    head["numberReturned"] = len(features)
    head["links"] = links
    return json.dumps(head, separators=(",", ":"))[:-1] + f',"features":{array_text(features)}}}'


def item_text(feature: str, url: Url, layer: Layer | Source, fid: int) -> str:
    """One feature's GeoJSON text with its ``self``, ``alternate`` and ``collection`` links."""
    base = f"/collections/{layer.name}"
    links = self_links(url, f"{base}/items/{fid}", GEOJSON) + [
        _link(url(base), "collection", JSON, layer.title)
    ]
    return feature[:-1] + ',"links":' + json.dumps(links, separators=(",", ":")) + "}"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
