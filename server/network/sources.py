"""Collections that other domains serve through ``/ogc`` and the exports, beside the layers of ``LAYERS``.

A layer is a table of the network that the feature service reads and writes. Some records
of the city's work are read as features too but belong to a higher domain, which the
network may not import (``.importlinter``): permits (``server/permits/collection.py``) are
keyed on their parcel and say things of owners that only the office may read. Such a
domain declares a :class:`Source` for its app at start-up (:func:`add_source`), and the
OGC views, documents and API definition serve it as they serve a layer: the same paging
(a cursor after an id, or an offset), bbox, filters and ``numberMatched``; the exports
(``server/network/exports.py``) write it as they write a layer. It sits beside the layer
registry, below both its readers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import current_app
from marshmallow import Schema

EXTENSION = "lateral_ogc_sources"


@dataclass(frozen=True)
class Source:
    """A collection served by another domain.

    Attributes:
        name: Its collection id (a URL segment).
        subject: One feature, singular ("permit").
        properties: Its features' properties contract (documents the features; its fields
            type the ``filters``).
        geometry_types: GeoJSON geometry types of its features.
        filters: Properties an items request may filter on (equality).
        extent: ``() -> (minx, miny, maxx, maxy) | None``.
        page: ``(bbox, filters, limit, after, offset, role) -> (features, next_after)``:
            features as GeoJSON dicts in id order, as the caller's ``role`` may read them.
        count: ``(bbox, filters) -> int``.
        item: ``(fid, role) -> (feature, version) | None``.
    """

    name: str
    subject: str
    properties: type[Schema]
    geometry_types: tuple[str, ...]
    filters: tuple[str, ...]
    extent: Callable[[], tuple | None]
    page: Callable[..., tuple[list[dict[str, Any]], int | None]]
    count: Callable[..., int]
    item: Callable[[int, str | None], tuple[dict[str, Any], int] | None]

    @property
    def title(self) -> str:
        return self.name.replace("-", " ").capitalize()


def add_source(app, source: Source) -> None:
    """Serve ``source`` as a collection of ``app``'s OGC API."""
    app.extensions.setdefault(EXTENSION, {})[source.name] = source


def sources() -> dict[str, Source]:
    """The current app's collections from other domains, by name."""
    return current_app.extensions.get(EXTENSION, {})
