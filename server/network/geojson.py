"""GeoJSON Feature contracts and the fast writer for feature collections."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime

import orjson
from marshmallow import RAISE, Schema, fields, validate


class FeatureIn(Schema):
    """A GeoJSON Feature as a client sends it (POST: geometry and properties required)."""

    class Meta:
        unknown = RAISE

    type = fields.String(required=True, validate=validate.Equal("Feature"))
    id = fields.Integer(allow_none=True, metadata={"description": "ignored on create; must match on PATCH"})
    geometry = fields.Dict(required=True, metadata={"description": "RFC 7946 geometry in WGS 84 lon/lat"})
    properties = fields.Dict(required=True)


class FeaturePatch(FeatureIn):
    """A partial Feature: only the members present change."""

    geometry = fields.Dict(metadata={"description": "new geometry, or absent to keep it"})
    properties = fields.Dict(metadata={"description": "changed properties only"})


class FeatureOut(Schema):
    type = fields.Constant("Feature")
    id = fields.Integer()
    geometry = fields.Dict()
    properties = fields.Dict()


class Link(Schema):
    rel = fields.String()
    href = fields.String()
    type = fields.String()


class FeatureCollectionOut(Schema):
    type = fields.Constant("FeatureCollection")
    features = fields.List(fields.Nested(FeatureOut))
    numberReturned = fields.Integer()
    links = fields.List(fields.Nested(Link))


def json_default(value):
    if isinstance(value, datetime):
        if value.tzinfo is None:  # SQLite hands back naive UTC
            value = value.replace(tzinfo=UTC)
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"cannot serialise {type(value).__name__}")


def feature_text(fid: int, geometry_json: str | None, properties: dict, members: dict | None = None) -> str:
    """One Feature as JSON text; the geometry is already GeoJSON text from GEOS (None: null).

    ``members`` are foreign members (RFC 7946 § 6.1) after ``properties``, e.g. the
    violations a save caused.
    """
    # orjson: a page of 1,000 features is the API's hot path; SQLite's naive UTC
    # datetimes are written with their +00:00, like PostGIS's aware ones.
    props = orjson.dumps(properties, default=json_default, option=orjson.OPT_NAIVE_UTC).decode()
    extra = "".join(
        f",{json.dumps(name)}:{json.dumps(value, default=json_default, separators=(',', ':'))}"
        for name, value in (members or {}).items()
    )
    geometry_json = geometry_json or "null"
    return f'{{"type":"Feature","id":{fid},"geometry":{geometry_json},"properties":{props}{extra}}}'


@dataclass(frozen=True)
class FeatureArray:
    """Features already written as one JSON array text; ``len()`` is how many."""

    text: str
    count: int

    def __len__(self) -> int:
        return self.count


def array_text(features: list[str] | FeatureArray) -> str:
    """The JSON array of features, from feature texts or an array written at once."""
    if isinstance(features, FeatureArray):
        return features.text
    return f"[{','.join(features)}]"


def collection_text(features: list[str] | FeatureArray, links: list[dict]) -> str:
    links_json = json.dumps(links, separators=(",", ":"))
    return (
        f'{{"type":"FeatureCollection","numberReturned":{len(features)},'
        f'"links":{links_json},"features":{array_text(features)}}}'
    )
