"""Importing a utility's existing GIS files (GeoPackage, GeoJSON, shapefile) into our layers.

A file is read with pyogrio's raw reader (arrays; no geopandas), reprojected to
EPSG:4326 with pyproj, and each record is mapped onto one of our layers by a named
:class:`Mapping` (sources name their columns differently; the mapping says which of
theirs fills which of ours). Every mapped record goes through the layer's properties
schema, exactly as an API write would; records that do not fit are reported, not
imported. The import is one bulk insert and one audit row, in the caller's transaction.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from geoalchemy2.shape import from_shape, to_shape
from marshmallow import ValidationError
from pyproj import CRS, Transformer
from sqlalchemy import insert, select

from server.core.audit import trail as audit
from server.core.dialects import bbox_filter
from server.core.extensions import db
from server.network import counts
from server.network.framing import strays_among
from server.network.layers import LAYERS
from server.network.loader import BY_SUBJECT, grow, load_layer
from server.network.schemas import MATERIALS

# A source tap this close to a main sits on it (its main_id is that main's).
TAP_SNAP_FT = 10.0
MAX_REPORTED = 20


class ImportFailed(ValueError):
    """The file cannot be imported at all (missing, unreadable, no CRS, unknown mapping)."""


Record = dict[str, Any]


@dataclass(frozen=True)
class Mapping:
    """How one source layer becomes rows of one of our layers.

    Attributes:
        layer: Our layer (``server.network.layers.LAYERS`` name), e.g. ``"mains"``.
        columns: Our column -> function of the source record giving its value.
        keep: Which source records to import at all (e.g. only sewer pipes).
        source_layer: The layer inside a multi-layer file (GeoPackage), if any.
        description: Where such files come from.
    """

    layer: str
    columns: dict[str, Callable[[Record], Any]]
    keep: Callable[[Record], bool] = lambda _record: True
    source_layer: str | None = None
    description: str = ""


@dataclass
class ImportReport:
    mapping: str
    layer: str
    path: str
    source_crs: str
    read: int = 0
    skipped: int = 0  # not kept by the mapping (other systems, abandoned pipe)
    imported: int = 0
    rejected: list[tuple[Any, str]] = field(default_factory=list)  # (source fid, reason)
    dry_run: bool = False

    def summary(self) -> dict:
        return {"mapping": self.mapping, "layer": self.layer, "path": self.path,
                "source_crs": self.source_crs, "read": self.read, "skipped": self.skipped,
                "imported": self.imported, "rejected": len(self.rejected),
                "rejected_examples": [[str(f), r] for f, r in self.rejected[:MAX_REPORTED]],
                "dry_run": self.dry_run}


# ---------------------------------------------------------------- value helpers
MATERIAL_ALIASES = {
    "DI": "DIP", "CI": "CIP", "RC": "RCP", "CONC": "RCP", "URC": "RCP", "PCCP": "RCP",
    "CP": "RCP", "AC": "ACP", "VC": "VCP", "CLAY": "VCP", "PE": "HDPE",
}


def material(value) -> str | None:
    """A source's material code as one of ours (unknown codes become ``OTHER``)."""
    text = str(value or "").strip().upper()
    if not text or text in ("NONE", "UNK", "UNKNOWN", "NAN"):
        return None
    text = MATERIAL_ALIASES.get(text, text)
    return text if text in MATERIALS else "OTHER"


def inches(value) -> float | None:
    """``12``, ``12.0`` or ``'12"'`` -> 12.0; box sections and blanks -> None."""
    if isinstance(value, (int, float, np.floating, np.integer)):
        number = float(value)
        return number if number > 0 and np.isfinite(number) else None
    match = re.fullmatch(r'\s*(\d+(?:\.\d+)?)\s*"?\s*', str(value or ""))
    return float(match.group(1)) if match and float(match.group(1)) > 0 else None


def year(value) -> int | None:
    day = day_of(value)
    return day.year if day else None


def day_of(value) -> date | None:
    if value is None:
        return None
    if isinstance(value, np.datetime64):
        return None if np.isnat(value) else value.astype("datetime64[D]").item()
    match = re.match(r"(\d{4})-(\d{2})-(\d{2})", str(value))
    return date(*map(int, match.groups())) if match else None


def text(name: str, length: int = 60) -> Callable[[Record], str | None]:
    def get(record: Record) -> str | None:
        value = record.get(name)
        value = None if value is None else str(value).strip()
        return value[:length] if value and value.lower() not in ("none", "nan") else None
    return get


# ---------------------------------------------------------------- the known sources
MAPPINGS: dict[str, Mapping] = {
    "tacoma-trunk-mains": Mapping(
        "mains",
        {"facility_id": text("FACILITYID"), "material": lambda r: material(r.get("MATERIAL")),
         "diameter_in": lambda r: inches(r.get("DIAMETER")),
         "kind": lambda r: "pressure" if str(r.get("PIPETYPE")).lower() == "force" else "gravity",
         "install_year": lambda r: year(r.get("INSTALLDATE"))},
        keep=lambda r: str(r.get("ACTIVEFLAG")) in ("1", "None"),
        source_layer="trunk_mains", description="City of Tacoma, WA wastewater trunk mains"),
    "tacoma-manholes": Mapping(
        "manholes", {"facility_id": text("FACILITYID"), "kind": lambda r: "manhole"},
        source_layer="manholes", description="City of Tacoma, WA wastewater manholes"),
    "tacoma-taps": Mapping(
        "taps", {"installed_on": lambda r: day_of(r.get("INSTALLDATE"))},
        source_layer="taps", description="City of Tacoma, WA wastewater taps (snapped to mains)"),
    "vermont-lines": Mapping(
        "mains", {"kind": lambda r: "gravity"},
        keep=lambda r: str(r.get("Status", "")).lower() != "abandoned"
        and "storm" not in str(r.get("System Type") or r.get("SystemType") or "").lower(),
        description="Vermont ANR / UVM wastewater linear features"),
    "vermont-points": Mapping(
        "manholes", {"kind": lambda r: "manhole"},
        keep=lambda r: str(r.get("System Type") or r.get("SystemType") or "").lower() == "wastewater",
        description="Vermont ANR / UVM wastewater point features"),
    "vermont-service-area": Mapping(
        "service-areas",
        {"name": lambda r: str(r.get("System Name") or r.get("System_Name") or "Service area")[:200]},
        description="Vermont ANR / UVM sewer service areas"),
    "sf-mains": Mapping(
        "mains", {"facility_id": text("MXASSETNUM"), "material": lambda r: material(r.get("PIPE_MATL")),
                  "diameter_in": lambda r: inches(r.get("PIPE_DIA")), "kind": lambda r: "gravity"},
        description="San Francisco Public Works sewer mains"),
    "sf-manholes": Mapping(
        "manholes", {"facility_id": text("MAXIMOID"), "kind": lambda r: "manhole"},
        description="San Francisco Public Works manholes"),
    "sf-laterals": Mapping(
        "laterals", {"material": lambda r: material(r.get("PIPE_MATL")),
                     "diameter_in": lambda r: inches(r.get("PIPE_DIA")),
                     "status": lambda r: "abandoned" if "not found" in str(r.get("STATUS")).lower() else "active"},
        description="San Francisco Public Works side sewers (laterals)"),
}


# ---------------------------------------------------------------- import
def import_file(path: str | Path, mapping_name: str, *, source_layer: str | None = None,
                dry_run: bool = False, actor=None) -> ImportReport:
    """Read a vector file and add its features to one of our layers.

    Args:
        path: GeoPackage, GeoJSON, shapefile … anything GDAL reads.
        mapping_name: Key of :data:`MAPPINGS`.
        source_layer: Layer inside the file (default: the mapping's, else the first).
        dry_run: Read, map and validate everything, write nothing.
        actor: Who imports (audited).

    Raises:
        ImportFailed: The mapping is unknown or the file cannot be read or located.
    """
    try:
        mapping = MAPPINGS[mapping_name]
    except KeyError:
        raise ImportFailed(f"no import mapping {mapping_name!r}; known: {', '.join(MAPPINGS)}") from None
    layer = LAYERS[mapping.layer]
    meta, fids, geoms, records = _read(Path(path), source_layer or mapping.source_layer)
    report = ImportReport(mapping_name, layer.name, str(path), meta["crs"], read=len(geoms), dry_run=dry_run)
    rows = []
    schema = layer.properties()
    fitted = _fit(geoms, layer.stored_type)
    for fid, geom, record in zip(fids, fitted, records, strict=True):
        if not mapping.keep(record):
            report.skipped += 1
            continue
        if isinstance(geom, str):
            report.rejected.append((fid, geom))
            continue
        try:
            props = schema.load({k: fn(record) for k, fn in mapping.columns.items()})
        except ValidationError as exc:
            report.rejected.append((fid, "; ".join(f"{k}: {v}" for k, v in exc.messages.items())))
            continue
        rows.append({**props, "geom": geom})
    if layer.imports_snap_to_mains:
        _snap_to_mains(rows)
    report.imported = len(rows)
    if not dry_run and rows:
        for start in range(0, len(rows), 5000):
            chunk = rows[start:start + 5000]
            db.session.execute(insert(layer.model),
                               [{**r, "geom": from_shape(r["geom"], srid=4326)} for r in chunk])
        audit.record("import", layer.subject, None, None, report.summary(), actor)
        db.session.flush()
    return report


def _read(path: Path, source_layer: str | None):
    """(meta, fids, EPSG:4326 geometries, records) of one layer of a vector file."""
    if not path.is_file():
        raise ImportFailed(f"{path}: no such file")
    if _is_sqlite(path):
        # GDAL's GeoPackage/SQLite drivers crash the process that has SpatiaLite loaded
        # (two SQLite libraries in one process): such files are read in a child process.
        with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
            meta, fids, wkb, columns = pool.submit(_raw_read, str(path), source_layer).result()
    else:
        meta, fids, wkb, columns = _raw_read(str(path), source_layer)
    if meta.get("crs") is None:
        raise ImportFailed(f"{path.name}: the file does not say its coordinate system; "
                           "add a .prj (shapefile) or a crs member and import again")
    geoms = shapely.force_2d(shapely.from_wkb(wkb))
    source = CRS.from_user_input(meta["crs"])
    if not source.equals(CRS.from_epsg(4326), ignore_axis_order=True):
        to_lonlat = Transformer.from_crs(source, "EPSG:4326", always_xy=True)
        geoms = shapely.transform(geoms, lambda xy: np.column_stack(to_lonlat.transform(xy[:, 0], xy[:, 1])))
    names = list(meta["fields"])
    records = [dict(zip(names, values, strict=True)) for values in zip(*columns, strict=True)] \
        if names else [{} for _ in range(len(geoms))]
    if fids is None:
        fids = np.arange(len(geoms))
    return meta, fids.tolist(), geoms, records


def _is_sqlite(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(16) == b"SQLite format 3\x00"


def _raw_read(path: str, source_layer: str | None):
    """pyogrio's arrays for one layer; a file GDAL cannot read is an ImportFailed."""
    import pyogrio.raw
    from pyogrio.errors import DataLayerError, DataSourceError

    try:
        layers = [str(name) for name in pyogrio.list_layers(path)[:, 0]]
        if source_layer is not None and source_layer not in layers:
            if len(layers) != 1:
                raise ImportFailed(f"{Path(path).name} has no layer {source_layer!r}; it has {', '.join(layers)}")
            source_layer = None  # a single-layer export of the same data (GeoJSON, shapefile)
        # Times as text: GDAL keeps them to the millisecond, and pyogrio's datetimes fail on
        # any time in the last half millisecond of a second (59.9997 s rounds to 1,000 ms:
        # "microsecond must be in 0..999999"). ``day_of`` reads the date from the text.
        return pyogrio.raw.read(path, layer=source_layer, return_fids=True, datetime_as_string=True)
    except (DataSourceError, DataLayerError) as exc:
        raise ImportFailed(f"{Path(path).name}: not a vector file GDAL can read ({exc})") from None


def _fit(geoms, stored_type: str) -> list:
    """Each geometry as the layer stores it, or a string saying why it cannot be."""
    out = []
    for geom in geoms:
        if geom is None or geom.is_empty:
            out.append("no geometry")
            continue
        kind = geom.geom_type
        if stored_type == "LINESTRING" and kind == "MultiLineString":
            merged = shapely.line_merge(geom)
            geom = merged if merged.geom_type == "LineString" else max(geom.geoms, key=lambda g: g.length)
        elif stored_type == "MULTIPOLYGON" and kind == "Polygon":
            geom = shapely.MultiPolygon([geom])
        elif stored_type == "POINT" and kind == "MultiPoint" and len(geom.geoms) == 1:
            geom = geom.geoms[0]
        expected = {"LINESTRING": "LineString", "MULTIPOLYGON": "MultiPolygon", "POINT": "Point"}[stored_type]
        if geom.geom_type != expected:
            out.append(f"{kind} where a {expected} is needed")
        elif not geom.is_valid:
            out.append(f"invalid geometry: {shapely.is_valid_reason(geom)}")
        else:
            out.append(geom)
    return out


def _snap_to_mains(rows: list[dict]) -> None:
    """Give each tap the stored main it sits on (within TAP_SNAP_FT), where there is one."""
    if not rows:
        return
    points = np.array([r["geom"] for r in rows], dtype=object)
    box = grow(tuple(shapely.total_bounds(points)), TAP_SNAP_FT)
    source = BY_SUBJECT["main"]
    dialect = db.session.get_bind().dialect.name
    mains = load_layer(source, [bbox_filter(source.model, box, dialect)])
    if not mains:
        return
    snap = grow((0.0, 0.0, 0.0, 0.0), TAP_SNAP_FT)[2]
    tree = shapely.STRtree([m.geometry for m in mains])
    (tap_idx, main_idx) = tree.query_nearest(points, max_distance=snap)
    for t, m in zip(tap_idx.tolist(), main_idx.tolist(), strict=True):
        rows[t].setdefault("main_id", None)
        if rows[t]["main_id"] is None:
            rows[t]["main_id"] = mains[m].id


# ---------------------------------------------------------------- a layer from any file, mapped by column
#: Pseudo-columns a ``--map`` may fill; each is parsed into the mailing columns.
POSTAL_TARGETS = ("postal_address", "postal_city_line")


@dataclass
class LayerImport:
    """What :func:`import_layer` did (or, in a dry run, would do)."""

    layer: str
    path: str
    source_crs: str
    schema: str  # "wisconsin-statewide-parcels", "road-centrelines", or "columns" (same names and --map)
    read: int = 0
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    ignored_fields: list[str] = field(default_factory=list)
    dry_run: bool = False
    #: Features imported all the same that the GIS staff should look at (a parcel far from the rest).
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        return {"layer": self.layer, "path": self.path, "source_crs": self.source_crs, "schema": self.schema,
                "read": self.read, "new": self.new, "updated": self.updated, "unchanged": self.unchanged,
                "ignored_fields": self.ignored_fields, "dry_run": self.dry_run, "warnings": self.warnings}


def parse_map(pairs) -> list[tuple[str, str]]:
    """``["SRC=DEST", …]`` as pairs; a malformed one is an ImportFailed."""
    out = []
    for pair in pairs:
        src, sep, dest = pair.partition("=")
        if not sep or not src.strip() or not dest.strip():
            raise ImportFailed(f"--map {pair!r}: write it as SOURCE_FIELD=our_column")
        out.append((src.strip(), dest.strip()))
    return out


def _plain(value):
    """A numpy scalar as a Python value; NaN and blank text as None."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, str) and not value.strip():
        return None
    return value


def _as_text(value) -> str | None:
    value = _plain(value)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return re.sub(r"\s+", " ", str(value)).strip() or None


class _Columns:
    """Turns a source record into our column values: the statewide schema, same names, ``--map``."""

    def __init__(self, layer, fields: list[str], column_map: list[tuple[str, str]], path: Path):
        from server.network import wi_parcels, wi_streets

        schema = layer.properties()
        self.writable = {n: f for n, f in schema.fields.items() if not f.dump_only}
        by_lower = {f.lower(): f for f in fields}
        self.mapped: list[tuple[str, str]] = []
        for src, dest in column_map:
            if src.lower() not in by_lower:
                raise ImportFailed(f"{path.name} has no field {src!r} (--map {src}={dest}); it has "
                                   f"{', '.join(fields)}")
            if dest not in self.writable and dest not in POSTAL_TARGETS:
                raise ImportFailed(f"--map {src}={dest}: the {layer.name} layer has no column {dest!r}; "
                                   f"its columns are {', '.join([*self.writable, *POSTAL_TARGETS])}")
            self.mapped.append((by_lower[src.lower()], dest))
        mapped_sources = {src for src, _ in self.mapped}
        # A published schema the layer reads without a --map: its name, reader, fields and what it gives.
        self.schema = "columns"
        self.columns_of_wi: Callable[[Record], dict] | None = None
        known_wi: frozenset[str] = frozenset()
        schema_gives: set[str] = set()
        if layer.imports_wi_parcels and wi_parcels.is_wi_schema(fields):
            self.schema, self.columns_of_wi, known_wi = "wisconsin-statewide-parcels", wi_parcels.columns, \
                wi_parcels.FIELDS
            schema_gives = {"parcel_number", "owner_name"}
        elif layer.imports_street_centrelines and wi_streets.is_centreline_schema(fields):
            self.schema, self.columns_of_wi, known_wi = "road-centrelines", wi_streets.columns, wi_streets.FIELDS
            schema_gives = {"name"}
        self.wi = self.columns_of_wi is not None
        self.same_name = [(f, f.lower()) for f in fields if f.lower() in self.writable and f not in mapped_sources
                          and f.upper() not in known_wi]
        self.unknown = [f for f in fields if f not in mapped_sources and f.lower() not in self.writable
                        and f.upper() not in known_wi]
        gives = {dest for _, dest in self.same_name} | {dest for _, dest in self.mapped} | schema_gives
        if gives & set(POSTAL_TARGETS):
            gives |= {"mailing_street", "mailing_city", "mailing_state", "mailing_zip"}
        missing = [n for n, f in self.writable.items() if f.required and n not in gives]
        if missing:
            raise ImportFailed(
                f"{path.name}: nothing in the file gives the {layer.name} layer's {', '.join(missing)}; "
                f"its fields {', '.join(self.unknown[:25])}{' …' if len(self.unknown) > 25 else ''} are unknown "
                "here. Map them with --map SOURCE_FIELD=our_column "
                f"(our columns: {', '.join([*self.writable, *POSTAL_TARGETS])})")

    def __call__(self, record: Record) -> dict:
        from server.network.wi_parcels import split_postal

        out = self.columns_of_wi(record) if self.columns_of_wi else {}
        for src, dest in self.same_name:
            out[dest] = self._value(dest, record.get(src))
        joined: dict[str, list[str]] = {}
        for src, dest in self.mapped:  # several fields into one column join with spaces, in order
            value = self._value(dest, record.get(src))
            joined.setdefault(dest, []).extend([] if value is None else [value])
        for dest, parts in joined.items():
            value = " ".join(map(str, parts)) if len(parts) > 1 else (parts[0] if parts else None)
            if dest == "postal_address":
                out.update(split_postal(value))
            elif dest == "postal_city_line":
                last = split_postal(f"X, {value}") if value else {}
                out.update({k: v for k, v in last.items() if k != "mailing_street"})
            else:
                out[dest] = value
        return out

    def _value(self, dest: str, value):
        from marshmallow import fields as mf

        target = self.writable.get(dest)
        if target is None or isinstance(target, mf.String):
            return _as_text(value)
        return _plain(value)


def import_layer(path: str | Path, layer_name: str, column_map: list[tuple[str, str]] = (), *,
                 dry_run: bool = False, actor=None, track=lambda items: items) -> LayerImport:
    """Import one vector file into one of our layers, all of it or none of it.

    Columns come from the Wisconsin statewide parcel schema (parcels, no configuration;
    :mod:`server.network.wi_parcels`), from fields named like our columns, and from
    ``column_map`` (``[("SBL", "parcel_number")]``; the pseudo-columns ``postal_address``
    and ``postal_city_line`` are parsed into the mailing columns). A feature whose key
    (the parcel number) is already stored is updated where it differs; others are new.

    Args:
        track: Wraps the list of records being checked (a progress bar).

    Raises:
        ImportFailed: The file cannot be read, has no CRS, lacks a required column, or
            any record does not fit (wrong geometry type, broken rings, a refused value,
            a key twice); the message says which. Nothing is written.
    """
    path = Path(path)
    layer = LAYERS.get(layer_name)
    if layer is None:
        raise ImportFailed(f"no layer {layer_name!r}; layers: {', '.join(LAYERS)}")
    meta, fids, geoms, records = _read(path, None)
    columns = _Columns(layer, list(meta["fields"]), list(column_map), path)
    report = LayerImport(layer.name, str(path), str(meta["crs"]),
                         columns.schema,
                         read=len(geoms), ignored_fields=columns.unknown, dry_run=dry_run)
    schema = layer.properties()
    key = layer.import_key or ("facility_id" if "facility_id" in columns.writable else None)
    rows, problems, seen = [], [], {}
    for fid, geom, record in track(list(zip(fids, _fit(geoms, layer.stored_type), records, strict=True))):
        if isinstance(geom, str):
            problems.append((fid, geom))
            continue
        values = columns(record)
        try:
            loaded = schema.load(values)
        except ValidationError as exc:
            problems.append((fid, "; ".join(f"{k}: {' '.join(map(str, v))}" for k, v in exc.messages.items())))
            continue
        if key and loaded.get(key):
            if loaded[key] in seen:
                problems.append((fid, f"{key} {loaded[key]} is also feature {seen[loaded[key]]}'s"))
                continue
            seen[loaded[key]] = fid
        rows.append((loaded, {k: loaded[k] for k in values if k in loaded}, geom))
    if problems:
        examples = "; ".join(f"feature {f}: {why}" for f, why in problems[:5])
        raise ImportFailed(f"{path.name}: {len(problems)} of {len(geoms)} features cannot be imported, so none "
                           f"were ({examples}{' …' if len(problems) > 5 else ''})")
    if layer.frames_city and key:
        report.warnings = _strays(layer, key, rows)
    existing = _existing(layer.model, key, [r[0].get(key) for r in rows if key and r[0].get(key)])
    inserts, updates = [], []
    for loaded, given, geom in rows:
        current = existing.get(loaded.get(key)) if key else None
        if current is None:
            inserts.append({**loaded, "geom": geom})
            continue
        changed = {k: v for k, v in given.items() if getattr(current, k) != v}
        if not to_shape(current.geom).equals_exact(geom, 1e-9):
            changed["geom"] = geom
        if changed:
            updates.append((current, changed))
        else:
            report.unchanged += 1
    report.new, report.updated = len(inserts), len(updates)
    if not dry_run and (inserts or updates):
        for start in range(0, len(inserts), 5000):
            db.session.execute(insert(layer.model), [{**r, "geom": from_shape(r["geom"], srid=4326)}
                                                     for r in inserts[start:start + 5000]])
        for current, changed in updates:
            for k, v in changed.items():
                setattr(current, k, from_shape(v, srid=4326) if k == "geom" else v)
        db.session.flush()
        counts.after_write(layer)  # fold the triggers' per-statement deltas (server/network/counts.py)
        audit.record("import", layer.subject, None, None, report.summary(), actor)
    return report


def _strays(layer, key: str, rows: list) -> list[str]:
    """A warning for each imported feature far from the rest of the city (with what is stored)."""
    keyed = [(loaded[key], geom.centroid) for loaded, _, geom in rows if loaded.get(key)]
    far = strays_among([k for k, _ in keyed], [c.x for _, c in keyed], [c.y for _, c in keyed])
    return [f"{layer.subject} {k} lies far from the rest of the city: check its coordinates (maps frame the "
            "city without it; `flask doctor` names it until it is fixed)" for k in far]


def _existing(model, key: str | None, keys: list) -> dict:
    """Stored features by their key value."""
    if not key or not keys:
        return {}
    column = getattr(model, key)
    out = {}
    for start in range(0, len(keys), 500):
        for obj in db.session.scalars(select(model).where(column.in_(keys[start:start + 500]))):
            out[getattr(obj, key)] = obj
    return out
