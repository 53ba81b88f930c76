"""Exports of any layer as GeoPackage, zipped Shapefile, CSV (WKT) or GeoJSON, via pyogrio.

One function, ``write_export``, reads the layer's rows (optionally inside a bbox) and
writes the file with GDAL; the API route streams it and the CLI leaves it on disk. A big
export runs as a job of the queue (``run_export_job``, issue #35): the worker writes the
file into ``LATERAL_EXPORT_DIR`` and the API hands it out from there.
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
from flask import current_app
from sqlalchemy import func, select

from server.core.dialects import bbox_filter
from server.core.extensions import db
from server.network.features import property_names
from server.network.layers import LAYERS, Layer


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


def write_export(layer: Layer, suffix: str, path: Path, bbox=None) -> int:
    """Write ``layer`` to ``path`` in the format named by ``suffix``; returns the row count.

    In CSV every text cell that starts like a formula is neutralised (:func:`neutralise_formula`);
    the other formats carry types and are not read as formulas.
    """
    fmt = FORMATS[suffix]
    geometries, names, arrays, masks = layer_arrays(layer, bbox)
    if suffix == "csv":
        arrays = [np.array([neutralise_formula(v) for v in a], dtype=object) if a.dtype == object else a
                  for a in arrays]
    table = layer.name.replace("-", "_")

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
            geometry_type=_GEOMETRY_TYPES[layer.stored_type], crs="EPSG:4326",
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

    ``params``: ``layer``, ``suffix`` and ``bbox`` (a list of four numbers, or None).
    The result names the file (``folder``/``filename``) for the API to hand out.
    """
    layer, suffix = LAYERS[params["layer"]], params["suffix"]
    root = export_folder()
    _sweep(root)
    folder = uuid.uuid4().hex
    target = root / folder / f"{layer.name}.{suffix}"
    target.parent.mkdir(parents=True, exist_ok=True)
    progress("write", 0, 1, target.name)
    bbox = tuple(params["bbox"]) if params.get("bbox") else None
    try:
        features = write_export(layer, suffix, target, bbox)
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
