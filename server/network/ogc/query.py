"""The query parameters /ogc accepts, as marshmallow schemas.

The items view parses with these schemas and the API definition (``server.network.ogc.openapi``)
is converted from them, so the two cannot disagree about a parameter.
"""

from __future__ import annotations

import functools

from marshmallow import RAISE, Schema, fields, validate

from server.core.web.paging import cursor_field
from server.network.api.features import BBox
from server.network.layers import LAYERS
from server.network.ogc.documents import CRS84

FORMATS = ("json", "html")
# The one CRS every collection lists (``crs``, ``storageCrs``), as a URI and as the safe
# CURIE OGC API – Features Part 2 also allows.
CRS84_NAMES = (CRS84, "[OGC:CRS84]")


def _crs_field(what: str, data_key: str | None = None) -> fields.String:
    return fields.String(
        data_key=data_key,
        validate=validate.OneOf(CRS84_NAMES, error=f"must be a CRS the collection lists: {CRS84}"),
        metadata={"description": f"the CRS of {what} (Part 2); every collection lists WGS 84 (CRS84) only"})


def _format_field() -> fields.String:
    return fields.String(validate=validate.OneOf(FORMATS), metadata={
        "description": "the response format; without it the Accept header decides, and JSON is the default",
    })


class FormatQuery(Schema):
    """``f``, which every endpoint takes."""

    f = _format_field()


@functools.lru_cache(maxsize=64)
def items_query(layer_name: str, page_default: int, page_max: int) -> Schema:
    """bbox, limit, offset, cursor, f, crs, bbox-crs and the layer's attribute filters; else a 400.

    A filter takes its property's type and validators, so a value no feature can hold
    (a ``source`` not in the list) is a 400, as OGC API – Features asks of an invalid
    parameter value, rather than an empty page. One instance per layer, reused: ``load``
    keeps no state between calls.
    """
    layer = LAYERS[layer_name]
    return collection_query(layer.properties, layer.filters, page_default, page_max)


@functools.lru_cache(maxsize=64)
def collection_query(properties: type[Schema], filters: tuple[str, ...], page_default: int, page_max: int) -> Schema:
    """:func:`items_query` for a collection's properties contract and its filters (a layer's,
    or a collection another domain serves: ``server.network.sources``)."""
    props = properties().fields
    attrs = {
        "Meta": type("Meta", (), {"unknown": RAISE}),
        "bbox": BBox(metadata={"description": "only features whose geometry intersects this box: "
                                              "minLon,minLat,maxLon,maxLat in WGS 84 (CRS84)"}),
        "limit": fields.Integer(load_default=page_default, validate=validate.Range(min=1, max=page_max),
                                metadata={"description": "how many features a page holds at most"}),
        "offset": fields.Integer(load_default=0, validate=validate.Range(min=0),
                                 metadata={"description": "how many matching features to skip (in id order); "
                                                          "the `next` link carries a `cursor` instead"}),
        "cursor": cursor_field(),
        "f": _format_field(),
        # GDAL 3.9+ sends crs= (the collection's first listed CRS) on every page it reads.
        "crs": _crs_field("the features"),
        "bbox_crs": _crs_field("bbox", data_key="bbox-crs"),
    }
    for name in filters:
        prop = props[name]
        attrs[name] = type(prop)(validate=prop.validators,
                                 metadata={"description": f"only features whose {name} equals this"})
    return type("OgcItemsQuery", (Schema,), attrs)()
