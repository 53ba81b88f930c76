"""Exports of any layer as GeoPackage, zipped Shapefile, CSV (WKT) or GeoJSON, via pyogrio.

One function, ``write_export``, reads the layer's rows (optionally inside a bbox) and
writes the file with GDAL; the API route streams it and the CLI leaves it on disk. A big
export runs as a job of the queue (``run_export_job``, issue #35): the worker writes the
file into ``LATERAL_EXPORT_DIR`` and the API hands it out from there.

Another domain's collection (``server/network/sources.py``: permits) exports the same
way (``write_source_export``): its features are read through its ``Source`` as the caller's
role may read them, so a permit's owners' data is in the office's files only.
"""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
import time
import uuid
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyogrio.raw
import shapely
import shapely.geometry
from flask import current_app
from marshmallow import fields
from sqlalchemy import func, select

from server.core.dialects import bbox_filter
from server.core.extensions import db
from server.network.features import property_names
from server.network.layers import LAYERS, Layer
from server.network.sources import Source, sources


@dataclass(frozen=True)
class ExportFormat:
    suffix: str  # after the layer name in the URL and file name: parcels.shp.zip
    driver: str
    media_type: str
    layer_options: dict
    dataset_options: dict | None = None


# GeoPackage 1.2, not the 1.4 that GDAL 3.9 and later write by default: GDAL 3.6 (Debian
# 12) and the QGIS 3.22 to 3.28 built on it warn "may only be partially supported" on every
# open of a 1.4 file, and 1.2 holds everything an export writes (GDAL reads it since 2.2).
GPKG_VERSION = "1.2"

FORMATS = {f.suffix: f for f in (
    ExportFormat("gpkg", "GPKG", "application/geopackage+sqlite3", {}, {"VERSION": GPKG_VERSION}),
    ExportFormat("shp.zip", "ESRI Shapefile", "application/zip", {"ENCODING": "UTF-8"}),
    ExportFormat("csv", "CSV", "text/csv", {"GEOMETRY": "AS_WKT"}),
    ExportFormat("geojson", "GeoJSON", "application/geo+json", {"RFC7946": "YES"}),
)}

_GEOMETRY_TYPES = {"POINT": "Point", "LINESTRING": "LineString", "MULTIPOLYGON": "MultiPolygon"}


def _column_array(values: list, python_type: type) -> tuple[np.ndarray, np.ndarray | None]:
    """A numpy array GDAL can take for one column, and the mask of its nulls."""
    nulls = np.array([v is None for v in values], dtype=bool)
    mask = nulls if nulls.any() else None
    if python_type is bool:
        return np.array([bool(v) for v in values], dtype=bool), mask
    if python_type is int:
        return np.array([v or 0 for v in values], dtype="int64"), mask
    if python_type is float:
        return np.array([np.nan if v is None else v for v in values], dtype="float64"), None
    if python_type is dt.datetime:
        # Stored in UTC; GDAL's datetime fields carry no zone, so the UTC wall clock goes in.
        naive = [None if v is None else v.astimezone(dt.UTC).replace(tzinfo=None) if v.tzinfo else v
                 for v in values]
        return np.array(naive, dtype="datetime64[ms]"), None
    if python_type is dt.date:
        return np.array(values, dtype="datetime64[D]"), None
    return np.array(values, dtype=object), None


def layer_arrays(layer: Layer, bbox=None) -> tuple[np.ndarray, list[str], list, list]:
    """(WKB geometries, field names, field arrays, null masks) of every row in id order."""
    model = layer.model
    names = ["id", *property_names(layer)]
    columns = [model.__table__.c[name] for name in names]
    stmt = select(func.ST_AsBinary(model.geom), *columns).order_by(model.id)
    if bbox is not None:
        stmt = stmt.where(bbox_filter(model, bbox, db.session.get_bind().dialect.name))
    rows = db.session.execute(stmt).all()
    geometries = np.array([bytes(r[0]) for r in rows], dtype=object)
    arrays, masks = [], []
    for i, column in enumerate(columns, start=1):
        array, mask = _column_array([r[i] for r in rows], column.type.python_type)
        arrays.append(array)
        masks.append(mask)
    return geometries, names, arrays, masks


#: What a spreadsheet takes as the start of a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_formula(value):
    """A text cell a spreadsheet would run as a formula, made plain text: a leading ``'``.

    ``=HYPERLINK("http://evil", "Click")`` typed as an owner's name into a parcel would
    otherwise run in the clerk's spreadsheet. OWASP's recommendation: prefix such cells
    with a single quote, which spreadsheets show as text and do not evaluate.
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


#: A collection's property types, from its marshmallow contract, as the columns take them.
_FIELD_TYPES: tuple[tuple[type, type], ...] = (
    (fields.Boolean, bool), (fields.Integer, int), (fields.Float, float), (fields.Decimal, float),
    (fields.DateTime, dt.datetime), (fields.Date, dt.date))
#: Features read from a source at a time.
SOURCE_PAGE = 1000


def _python_type(field) -> type:
    return next((python for kind, python in _FIELD_TYPES if isinstance(field, kind)), str)


def _typed(value, python_type: type):
    """A property as its column takes it (GeoJSON carries dates as ISO text)."""
    if value is None:
        return None
    if python_type in (dt.date, dt.datetime) and isinstance(value, str):
        return python_type.fromisoformat(value)
    return str(value) if python_type is str else value


def source_arrays(source: Source, role: str | None, bbox=None) -> tuple[np.ndarray, list[str], list, list]:
    """(WKB geometries, field names, field arrays, null masks) of a source's features, in id
    order, with the properties ``role`` may read (the source leaves the others out)."""
    features: list[dict] = []
    after = None
    while True:
        page, after = source.page(bbox, {}, SOURCE_PAGE, after, 0, role)
        features += page
        if after is None:
            break
    contract = source.properties().fields
    shown = [n for n in contract if features and n in features[0]["properties"]]
    types = [_python_type(contract[n]) for n in shown]
    geometries = np.array([shapely.to_wkb(shapely.geometry.shape(f["geometry"])) if f["geometry"] else None
                           for f in features], dtype=object)
    arrays, masks = [], []
    ids, _ = _column_array([f["id"] for f in features], int)
    for name, python_type in zip(shown, types, strict=True):
        array, mask = _column_array([_typed(f["properties"].get(name), python_type) for f in features], python_type)
        arrays.append(array)
        masks.append(mask)
    return geometries, ["id", *shown], [ids, *arrays], [None, *masks]


def write_source_export(source: Source, suffix: str, path: Path, role: str | None, bbox=None) -> int:
    """Write another domain's collection to ``path``, as :func:`write_export` writes a layer."""
    geometries, names, arrays, masks = source_arrays(source, role, bbox)
    return _write_file(source.name, source.geometry_types[0].upper(), suffix, path, geometries, names, arrays,
                       masks)


def collection_names() -> list[str]:
    """What may be exported: the layers, then the collections other domains serve."""
    return [*LAYERS, *sources()]


def write_named_export(name: str, suffix: str, path: Path, role: str | None, bbox=None) -> int:
    """Write the layer or collection ``name`` (one of :func:`collection_names`) to ``path``;
    a collection with the properties ``role`` may read."""
    if name in LAYERS:
        return write_export(LAYERS[name], suffix, path, bbox)
    return write_source_export(sources()[name], suffix, path, role, bbox)


def write_export(layer: Layer, suffix: str, path: Path, bbox=None) -> int:
    """Write ``layer`` to ``path`` in the format named by ``suffix``; returns the row count.

    In CSV every text cell that starts like a formula is neutralised (:func:`neutralise_formula`);
    the other formats carry types and are not read as formulas.
    """
    geometries, names, arrays, masks = layer_arrays(layer, bbox)
    return _write_file(layer.name, layer.stored_type, suffix, path, geometries, names, arrays, masks)


def _write_file(name: str, stored_type: str, suffix: str, path: Path, geometries, names, arrays, masks) -> int:
    fmt = FORMATS[suffix]
    if suffix == "csv":
        arrays = [np.array([neutralise_formula(v) for v in a], dtype=object) if a.dtype == object else a
                  for a in arrays]
    table = name.replace("-", "_")

    def write(target: Path) -> None:
        with warnings.catch_warnings():
            # Shapefile columns are cut to 10 characters (GDAL warns for each one) …
            warnings.filterwarnings("ignore", "Normalized/laundered field name", RuntimeWarning)
            # ... and keeps date-times as text.
            warnings.filterwarnings("ignore", ".*created as String field", RuntimeWarning)
            _write(target)

    def _write(target: Path) -> None:
        pyogrio.raw.write(
            str(target), geometries, arrays, names, field_mask=masks, layer=table, driver=fmt.driver,
            geometry_type=_GEOMETRY_TYPES[stored_type], crs="EPSG:4326",
            layer_options=fmt.layer_options, dataset_options=fmt.dataset_options,
        )

    if suffix != "shp.zip":
        write(path)
        return len(geometries)
    with tempfile.TemporaryDirectory() as tmp:
        write(Path(tmp) / f"{table}.shp")
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for part in sorted(Path(tmp).iterdir()):
                archive.write(part, part.name)
    return len(geometries)


EXPORT_JOB = "export"
#: Files of export jobs older than this are swept when another export job runs.
EXPORT_KEEP_SECONDS = 24 * 3600


def export_folder() -> Path:
    configured = current_app.config.get("LATERAL_EXPORT_DIR")
    return Path(configured) if configured else Path(current_app.instance_path) / "exports"


def run_export_job(params: dict, progress) -> dict:
    """A layer written to a file of its own in the export folder, as a job of the queue.

    ``params``: ``layer`` (a layer's or another domain's collection's name), ``suffix``,
    ``bbox`` (a list of four numbers, or None) and, for a collection, ``role`` (the
    submitter's, which decides the properties written). The result names the file
    (``folder``/``filename``) for the API to hand out.
    """
    name, suffix = params["layer"], params["suffix"]
    root = export_folder()
    _sweep(root)
    folder = uuid.uuid4().hex
    target = root / folder / f"{name}.{suffix}"
    target.parent.mkdir(parents=True, exist_ok=True)
    progress("write", 0, 1, target.name)
    bbox = tuple(params["bbox"]) if params.get("bbox") else None
    try:
        features = write_named_export(name, suffix, target, params.get("role"), bbox)
    except BaseException:
        shutil.rmtree(target.parent, ignore_errors=True)
        raise
    return {"folder": folder, "filename": target.name, "features": features, "bytes": target.stat().st_size,
            "media_type": FORMATS[suffix].media_type}


def export_file(result: dict) -> Path | None:
    """The file an export job left, if it is still there."""
    folder, name = str(result.get("folder", "")), str(result.get("filename", ""))
    if not folder.isalnum() or "/" in name or name.startswith("."):
        return None
    path = export_folder() / folder / name
    return path if path.is_file() else None


def _sweep(root: Path) -> None:
    if not root.exists():
        return
    cutoff = time.time() - EXPORT_KEEP_SECONDS
    for entry in root.iterdir():
        try:
            if entry.stat().st_mtime < cutoff:
                shutil.rmtree(entry, ignore_errors=True)
        except FileNotFoundError:
            pass
