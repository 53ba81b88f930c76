"""The engine over real utility data (San Francisco DPW, Tacoma): it runs, and sanely.

Fields are mapped best-effort: these are not Arcadia's records, so the point is that
real geometry (multi-part lines, odd materials, missing values) goes through every rule
without error, measured in a local feet-based State Plane CRS.
"""

from __future__ import annotations

import json
import re
from datetime import date

import pytest
import shapely
from shapely.geometry import shape

from gis.crs import Measurer
from gis.rulebook import load_rulebook
from gis.rules import Lateral, Network, SewerMain, Tap, run_rules
from tests.support.env import need_shared

pytestmark = pytest.mark.realdata

SF = ("realdata", "gis", "sf_dpw_2977J")
TACOMA = ("realdata", "gis", "tacoma_wa_stormpiper", "sample_C02_1_C03_1", "epsg4326")


def _features(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)["features"]


def _line(geometry):
    """A LineString from a (possibly multi-part) GeoJSON line."""
    geom = shape(geometry)
    if geom.geom_type == "MultiLineString":
        merged = shapely.line_merge(geom)
        geom = merged if merged.geom_type == "LineString" else max(geom.geoms, key=lambda g: g.length)
    return geom


def _inches(text):
    """``'12"'`` → 12.0; box sections and blanks → None."""
    match = re.fullmatch(r'\s*(\d+(?:\.\d+)?)"\s*', text or "")
    return float(match.group(1)) if match else None


def _taps_on_nearest_main(mains, points, lateral_ids):
    """A tap where each point meets its nearest main (the records carry no main id)."""
    tree = shapely.STRtree([m.geometry for m in mains])
    nearest = tree.nearest(points)
    taps = []
    for n, (point, m) in enumerate(zip(points, nearest, strict=True)):
        main = mains[int(m)]
        at = main.geometry.interpolate(main.geometry.project(point))
        taps.append(Tap(id=n + 1, main_id=main.id, lateral_id=lateral_ids[n], geometry=at))
    return taps


@pytest.fixture(scope="module")
def san_francisco() -> Network:
    folder = need_shared(*SF)
    mains = [
        SewerMain(id=f["properties"]["INST_ID"], geometry=_line(f["geometry"]),
                  material=f["properties"].get("PIPE_MATL"),
                  diameter_in=_inches(f["properties"].get("PIPE_DIA")))
        for f in _features(next(folder.glob("*_mains_*.geojson")))
    ]
    laterals = []
    main_tree = shapely.STRtree([m.geometry for m in mains])
    for f in _features(next(folder.glob("*_laterals_*.geojson"))):
        props, geom = f["properties"], _line(f["geometry"])
        first, last = shapely.get_point(geom, 0), shapely.get_point(geom, -1)
        if main_tree.query_nearest(last, return_distance=True)[1][0] < \
                main_tree.query_nearest(first, return_distance=True)[1][0]:
            geom = geom.reverse()  # first vertex at the main
        scope = props.get("SCOPE") or ""
        laterals.append(Lateral(
            id=props["INST_ID"], parcel_id=props.get("BLKLOT"), geometry=geom,
            material=props.get("PIPE_MATL"), diameter_in=_inches(props.get("PIPE_DIA")),
            status="active", is_new_or_replacement="(N)" in scope or None,
        ))
    starts = [shapely.get_point(lat.geometry, 0) for lat in laterals]
    taps = _taps_on_nearest_main(mains, starts, [lat.id for lat in laterals])
    return Network(mains=mains, laterals=laterals, taps=taps)


@pytest.fixture(scope="module")
def tacoma() -> Network:
    folder = need_shared(*TACOMA)
    mains = [
        SewerMain(id=f["properties"]["FACILITYID"], geometry=_line(f["geometry"]),
                  material=f["properties"].get("MATERIAL"),
                  diameter_in=f["properties"].get("DIAMETER"),
                  kind="pressure" if f["properties"].get("PIPETYPE") == "Force" else "gravity",
                  install_year=int(f["properties"]["INSTALLDATE"][:4])
                  if f["properties"].get("INSTALLDATE") else None)
        for f in _features(folder / "trunk_mains.geojson")
    ]
    records = _features(folder / "taps.geojson")
    points = [shape(f["geometry"]) for f in records]
    taps = _taps_on_nearest_main(mains, points, [None] * len(points))
    taps = [
        Tap(id=f["properties"]["FACILITYID"], main_id=t.main_id, lateral_id=None,
            geometry=t.geometry, installed_on=date.fromisoformat(f["properties"]["INSTALLDATE"])
            if f["properties"].get("INSTALLDATE") else None)
        for f, t in zip(records, taps, strict=True)
    ]
    return Network(mains=mains, taps=taps)


@pytest.mark.parametrize(("city", "crs"), [("san_francisco", "EPSG:2227"),
                                           ("tacoma", "EPSG:2927")])
def test_every_rule_runs_on_real_data(request, city, crs):
    network = request.getfixturevalue(city)
    found = run_rules(network, load_rulebook("arcadia"), measurer=Measurer(crs))
    assert found == run_rules(network, load_rulebook("arcadia"), measurer=Measurer(crs))
    assert all(v.section.startswith("§ ") and v.section in v.message for v in found)
    assert all(v.evidence is None or v.evidence.is_valid for v in found)


def test_real_laterals_lack_backflow_records(san_francisco):
    found = run_rules(san_francisco, load_rulebook("arcadia"), only=["BACKFLOW-VALVE"],
                      measurer=Measurer("EPSG:2227"))
    assert len(found) == len(san_francisco.laterals)


def test_new_clay_laterals_are_not_sdr26_pvc(san_francisco):
    new = [lat.id for lat in san_francisco.laterals if lat.is_new_or_replacement]
    found = run_rules(san_francisco, load_rulebook("arcadia"), only=["LATERAL-SDR26"],
                      measurer=Measurer("EPSG:2227"))
    assert new and sorted(v.subjects[0][1] for v in found) == sorted(new)
