"""A deterministic synthetic sewer utility around Arcadia, Wisconsin, for demos and tests.

The city is laid out in local metres (see ``layout.py``), placed on EPSG:3071 with its
sewered grid centred on Arcadia (44.253 N, 91.501 W), and handed out in EPSG:4326
(lon/lat) as shapely geometries inside plain dicts whose keys are the database
columns. Same arguments, same city: every random draw comes from one seeded numpy
``Generator``; nothing reads the clock or global state.

Two ways to take it:

* ``generate_city(parcels, seed)`` builds every row at once (a ``DemoCity``).
* ``iter_layers(parcels, seed, batch_size)`` yields ``(layer, rows)`` batches in
  foreign-key order (service areas, manholes, mains, parcels, laterals, taps, tracer
  wires, findings), so a loader can stream 160,000 parcels without holding every dict.
  The rows are identical to ``generate_city``'s; ``CityPlan.deliberate`` is known
  before the first batch.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyproj
import shapely

from .findings import build_findings
from .layout import LOT_D, LOT_W, STREET_HALF, lay_out_lots, lay_out_network, plan_grid
from .network import build_nodes_and_mains
from .owners import build_owners
from .services import build_services, frontage_main, pick_deliberate
from .streets import lay_out_streets

ARCADIA_LONLAT = (-91.501, 44.253)
PROJECTED_CRS = "EPSG:3071"
MIN_PARCELS = 200
LAYERS = (
    "service_areas", "streets", "manholes", "mains", "parcels",
    "laterals", "taps", "tracer_wires", "findings",
)
TRACER_OFFSET = 0.15  # m beside the lateral
SERVICE_AREA_NAME = "Arcadia sanitary sewer service area"

Row = dict
Deliberate = tuple[str, str, int]


@dataclass
class DemoCity:
    """Every layer of the demo city as lists of row dicts (geometry in EPSG:4326).

    ``deliberate`` lists each planted rule break as ``(rule_id, layer, id)``, where
    layer is ``"parcel"``, ``"main"``, ``"lateral"``, ``"tap"`` or ``"finding"``; every
    other row is meant to pass the rules. ``unmailable`` holds the ids of parcels
    whose owner has no usable mailing address (not a rule break; notices hold them).
    """

    service_areas: list[Row] = field(default_factory=list)
    streets: list[Row] = field(default_factory=list)
    manholes: list[Row] = field(default_factory=list)
    mains: list[Row] = field(default_factory=list)
    parcels: list[Row] = field(default_factory=list)
    laterals: list[Row] = field(default_factory=list)
    taps: list[Row] = field(default_factory=list)
    tracer_wires: list[Row] = field(default_factory=list)
    findings: list[Row] = field(default_factory=list)
    deliberate: list[Deliberate] = field(default_factory=list)
    unmailable: list[int] = field(default_factory=list)


def generate_city(parcels: int = 1200, seed: int = 315) -> DemoCity:
    """Build the whole demo city.

    Args:
        parcels: number of parcels, at least 200 (every deliberate break needs room).
        seed: random seed; the same (parcels, seed) always gives the same city.
    """
    plan = CityPlan(parcels, seed)
    city = DemoCity(deliberate=plan.deliberate, unmailable=plan.unmailable)
    for layer in LAYERS:
        getattr(city, layer).extend(plan.rows(layer, 0, plan.count(layer)))
    return city


def iter_layers(
    parcels: int = 1200, seed: int = 315, batch_size: int = 5000
) -> Iterator[tuple[str, list[Row]]]:
    """Yield ``(layer, rows)`` batches of at most ``batch_size`` rows, parents first."""
    plan = CityPlan(parcels, seed)
    for layer in LAYERS:
        total = plan.count(layer)
        for start in range(0, total, batch_size):
            yield layer, plan.rows(layer, start, min(start + batch_size, total))


class CityPlan:
    """The city as numpy arrays in local metres; turns row ranges into dicts on demand."""

    def __init__(self, parcels: int, seed: int):
        if parcels < MIN_PARCELS:
            raise ValueError(f"parcels must be at least {MIN_PARCELS}, got {parcels}")
        rng = np.random.default_rng([seed, parcels])
        self.grid = plan_grid(parcels)
        self.lots = lay_out_lots(self.grid)
        self.net = lay_out_network(self.grid)
        self.picks = pick_deliberate(self.grid, self.lots, rng)
        main_of_lot = frontage_main(self.grid, self.lots, self.net)
        picked = np.array(sorted(self.picks.all()))
        self.nodes, self.mains = build_nodes_and_mains(
            self.grid, self.net, rng, force_pvc=np.unique(main_of_lot[picked])
        )
        self.has_building = rng.random(parcels) >= 0.03
        self.has_building[picked] = True
        self.owners = build_owners(self.grid, self.lots, rng, exclude=set(picked.tolist()))
        big = self.owners.user_class != "residential"
        self.services = build_services(
            self.lots, self.net, main_of_lot, self.mains.install_year,
            self.mains.material, self.mains.segment_length_m, self.has_building, big,
            self.picks, rng,
        )
        sv = self.services
        clean = ~np.isin(sv.parcel, picked)
        self.findings = build_findings(
            sv.parcel[clean], sv.coords[clean, 2], self.lots.inward[sv.parcel[clean]], rng
        )
        self.has_septic = ~self.lots.sewered & self.has_building
        self.has_septic[self.picks.septic + self.picks.septic_approved] = True
        self.septic_approved = np.zeros(parcels, dtype=bool)
        self.septic_approved[self.picks.septic_approved] = True
        self.streets = lay_out_streets(self.grid, self.lots)
        self._to_lonlat = _projector(self.grid.width, self.grid.height)

    # ------------------------------------------------------------------ bookkeeping
    def count(self, layer: str) -> int:
        return {
            "service_areas": 1,
            "streets": len(self.streets),
            "manholes": len(self.nodes.x),
            "mains": len(self.mains.start),
            "parcels": self.grid.parcels,
            "laterals": len(self.services.parcel),
            "taps": len(self.services.parcel),
            "tracer_wires": len(self.services.tracer),
            "findings": len(self.findings.parcel),
        }[layer]

    def rows(self, layer: str, start: int, stop: int) -> list[Row]:
        """Rows ``start:stop`` (0-based) of a layer; ids are row number + 1."""
        return getattr(self, f"_{layer}")(start, stop)

    @cached_property
    def deliberate(self) -> list[Deliberate]:
        lat = self.services.lateral_of_parcel
        p = self.picks
        out: list[Deliberate] = []
        for a, b in p.spacing_pairs:
            out += [("TAP-SPACING-24IN", "tap", lat[a] + 1), ("TAP-SPACING-24IN", "tap", lat[b] + 1)]
        for rule in ("TAP-JOINT-6IN", "TAP-QUADRANT", "TAP-METHOD"):
            out += [(rule, "tap", lat[x] + 1) for x in p.by_rule[rule]]
        for rule in ("LATERAL-SDR26", "BACKFLOW-VALVE", "TRACER-WIRE"):
            out += [(rule, "lateral", lat[x] + 1) for x in p.by_rule[rule]]
        out += [("HOOKUP-365", "parcel", x + 1) for x in p.hookup]
        out += [("SEPTIC-IN-AREA", "parcel", x + 1) for x in p.septic]
        out.append(("PRESSURE-SEWER", "main", self.mains.shallow_pressure + 1))
        out += [("CLEAR-WATER", "finding", r + 1) for r in self.findings.deliberate]
        return out

    @property
    def unmailable(self) -> list[int]:
        return [p + 1 for p in self.owners.unmailable]

    # ------------------------------------------------------------------ layers
    def _service_areas(self, start: int, stop: int) -> list[Row]:
        g = self.grid
        box = shapely.segmentize(
            shapely.box(-STREET_HALF, -STREET_HALF, g.width + STREET_HALF, g.height + STREET_HALF),
            100.0,
        )
        ring = self._lonlat(shapely.get_coordinates(box.exterior))
        area = shapely.MultiPolygon([shapely.Polygon(ring)])
        return [{"id": 1, "name": SERVICE_AREA_NAME, "geometry": area}][start:stop]

    def _streets(self, start: int, stop: int) -> list[Row]:
        rows = []
        for idx, street in enumerate(self.streets[start:stop], start):
            line = shapely.linestrings(self._lonlat(np.array(street.coords)))
            left, right = street.left or (None, None), street.right or (None, None)
            rows.append({
                "id": idx + 1, "name": street.name, "left_from": left[0], "left_to": left[1],
                "right_from": right[0], "right_to": right[1], "geometry": line,
            })
        return rows

    def _manholes(self, start: int, stop: int) -> list[Row]:
        n = self.nodes
        sl = slice(start, stop)
        points = shapely.points(self._lonlat(np.column_stack([n.x[sl], n.y[sl]])))
        rows = []
        for off, (kind, rim) in enumerate(zip(n.kind[sl], n.rim_elev_ft[sl].tolist(), strict=True)):
            idx = start + off
            prefix = "MH" if kind == "manhole" else "FC"
            rows.append({
                "id": idx + 1, "facility_id": f"{prefix}-{idx + 1:04d}", "kind": kind,
                "rim_elev_ft": rim, "geometry": points[off],
            })
        return rows

    @cached_property
    def _main_vertices(self) -> tuple[np.ndarray, np.ndarray]:
        """Vertices of every main in local metres, taps included, with CSR offsets.

        A tap is a vertex of its main, so it lies on the main in lon/lat as well.
        """
        m, n, sv = self.mains, self.nodes, self.services
        n_main = len(m.start)
        owner = np.concatenate([np.arange(n_main), np.arange(n_main), sv.main])
        along = np.concatenate([np.zeros(n_main), np.full(n_main, np.inf), sv.along])
        x = np.concatenate([n.x[m.start], n.x[m.end], sv.coords[:, 0, 0]])
        y = np.concatenate([n.y[m.start], n.y[m.end], sv.coords[:, 0, 1]])
        order = np.lexsort((along, owner))
        offsets = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=n_main))])
        return np.column_stack([x, y])[order], offsets

    def _mains(self, start: int, stop: int) -> list[Row]:
        m = self.mains
        xy, offsets = self._main_vertices
        lo, hi = offsets[start], offsets[stop]
        counts = np.diff(offsets[start : stop + 1])
        lines = shapely.linestrings(
            self._lonlat(xy[lo:hi]), indices=np.repeat(np.arange(stop - start), counts)
        )
        rows = []
        for off in range(stop - start):
            i = start + off
            rows.append({
                "id": i + 1, "facility_id": f"SM-{i + 1:04d}", "material": m.material[i],
                "diameter_in": float(m.diameter_in[i]),
                "segment_length_ft": float(m.segment_length_ft[i]), "kind": m.kind[i],
                "sdr": m.sdr[i], "cover_ft": float(m.cover_ft[i]),
                "install_year": int(m.install_year[i]),
                "from_manhole_id": int(m.start[i]) + 1, "to_manhole_id": int(m.end[i]) + 1,
                "geometry": lines[off],
            })
        return rows

    def _parcels(self, start: int, stop: int) -> list[Row]:
        lots, ow = self.lots, self.owners
        sl = slice(start, stop)
        x0, y0 = lots.x0[sl], lots.y0[sl]
        x1, y1 = x0 + LOT_W, y0 + LOT_D
        # Counter-clockwise exterior ring (RFC 7946); TM keeps orientation.
        ring = np.stack(
            [np.column_stack(c) for c in ((x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0))],
            axis=1,
        )
        lonlat = self._lonlat(ring.reshape(-1, 2)).reshape(ring.shape)
        polys = shapely.polygons(lonlat)
        multis = shapely.multipolygons(polys, indices=np.arange(len(polys)))
        owner, owner2, mailing = ow.rows(start, stop)
        site = ow.site_addresses(start, stop)
        rows = []
        for off in range(stop - start):
            p = start + off
            street, city, state, zip_ = mailing[off]
            rows.append({
                "id": p + 1, "parcel_number": _parcel_number(p + 1),
                "owner_name": owner[off], "owner_name_2": owner2[off],
                "mailing_street": street, "mailing_city": city, "mailing_state": state,
                "mailing_zip": zip_, "site_address": site[off],
                "user_class": ow.user_class[p], "has_building": bool(self.has_building[p]),
                "in_service_area": bool(lots.sewered[p]), "has_septic": bool(self.has_septic[p]),
                "septic_approved": bool(self.septic_approved[p]), "geometry": multis[off],
            })
        return rows

    def _laterals(self, start: int, stop: int) -> list[Row]:
        sv = self.services
        lines = self._lines(sv.coords[start:stop])
        rows = []
        for off in range(stop - start):
            i = start + off
            installed = dt.date.fromordinal(int(sv.installed[i]))
            rows.append({
                "id": i + 1, "parcel_id": int(sv.parcel[i]) + 1, "material": sv.material[i],
                "sdr": sv.sdr[i], "diameter_in": float(sv.diameter_in[i]),
                "installed_on": installed, "backflow_valve": sv.backflow[i], "status": "active",
                "is_new_or_replacement": installed.year >= 2009, "geometry": lines[off],
            })
        return rows

    def _taps(self, start: int, stop: int) -> list[Row]:
        sv = self.services
        points = shapely.points(self._lonlat(sv.coords[start:stop, 0]))
        rows = []
        for off in range(stop - start):
            i = start + off
            rows.append({
                "id": i + 1, "main_id": int(sv.main[i]) + 1, "lateral_id": i + 1,
                "method": sv.tap_method[i], "fitting_material": sv.tap_fitting[i],
                "clock_position": float(sv.tap_clock[i]),
                "installed_on": dt.date.fromordinal(int(sv.installed[i])),
                "permit_number": sv.permit(i), "geometry": points[off],
            })
        return rows

    def _tracer_wires(self, start: int, stop: int) -> list[Row]:
        lateral = self.services.tracer[start:stop]
        coords = self.services.coords[lateral].copy()
        coords[:, :, 0] += TRACER_OFFSET
        lines = self._lines(coords)
        return [
            {
                "id": start + off + 1, "lateral_id": int(lat) + 1, "gauge_awg": 14,
                "in_conduit": True, "reaches_surface_at_wall": True, "geometry": lines[off],
            }
            for off, lat in enumerate(lateral.tolist())
        ]

    def _findings(self, start: int, stop: int) -> list[Row]:
        f = self.findings
        points = shapely.points(self._lonlat(f.xy[start:stop]))
        rows = []
        for off in range(stop - start):
            i = start + off
            rows.append({
                "id": i + 1, "parcel_id": int(f.parcel[i]) + 1, "source": f.source[i],
                "connected_to_sanitary": f.connected[i],
                "observed_on": dt.date.fromordinal(int(f.observed_on[i])),
                "observed_by": f.observed_by[i], "method": f.method[i], "notes": f.notes[i],
                "geometry": points[off],
            })
        return rows

    def _lonlat(self, xy: np.ndarray) -> np.ndarray:
        return self._to_lonlat(xy)

    def _lines(self, coords: np.ndarray) -> np.ndarray:
        """(n, k, 2) local coordinates -> n lon/lat LineStrings."""
        return shapely.linestrings(self._lonlat(coords.reshape(-1, 2)).reshape(coords.shape))


def _projector(width: float, height: float):
    """Local metres -> lon/lat, with the sewered grid centred on Arcadia in EPSG:3071."""
    to_proj = pyproj.Transformer.from_crs("EPSG:4326", PROJECTED_CRS, always_xy=True)
    to_geo = pyproj.Transformer.from_crs(PROJECTED_CRS, "EPSG:4326", always_xy=True)
    e0, n0 = to_proj.transform(*ARCADIA_LONLAT)
    ox, oy = e0 - width / 2, n0 - height / 2

    def project(xy: np.ndarray) -> np.ndarray:
        lon, lat = to_geo.transform(xy[..., 0] + ox, xy[..., 1] + oy)
        return np.stack([lon, lat], axis=-1)

    return project


def _parcel_number(n: int) -> str:
    """``206-00123-0000``: municipality code, parcel, and a split/overflow suffix."""
    return f"206-{n % 100000:05d}-{n // 100000:04d}"
