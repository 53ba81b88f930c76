"""`flask import streets FILE`: road centrelines in the NG911 and TIGER/Line schemas (issue 34)."""

from __future__ import annotations

import pytest
from pyproj import Transformer
from shapely.geometry import LineString
from sqlalchemy import func, select

from server.core.extensions import db
from server.network.models import Street
from tests.support.import_files import ARCADIA, WTM, write

NG911 = [
    {"St_PreDir": "W", "St_Name": "Jackson", "St_PosTyp": "St", "FromAddr_L": 101, "ToAddr_L": 199,
     "FromAddr_R": 100, "ToAddr_R": 198},
    {"St_PreDir": None, "St_Name": "Dettloff", "St_PosTyp": "Dr", "FromAddr_L": 0, "ToAddr_L": 0,
     "FromAddr_R": 400, "ToAddr_R": 498},
]
TIGER = [{"FULLNAME": "Co Rd J", "LFROMHN": "1", "LTOHN": "99", "RFROMHN": None, "RTOHN": None}]


def _lines(n: int):
    x0, y0 = Transformer.from_crs("EPSG:4326", WTM, always_xy=True).transform(*ARCADIA)
    return [LineString([(x0, y0 + 100 * i), (x0 + 200, y0 + 100 * i)]) for i in range(n)]


def _streets() -> list[Street]:
    return list(db.session.scalars(select(Street).order_by(Street.id)))


@pytest.mark.parametrize("name", ["streets.geojson", "streets.zip"])
def test_ng911_centrelines_import_with_names_and_ranges(run_import, tmp_path, name):
    result = run_import("streets", write(tmp_path / name, NG911, _lines(2)))

    assert result.exit_code == 0, result.output
    assert "2 new" in result.output and "road-centrelines" in result.output
    jackson, dettloff = _streets()
    assert (jackson.name, jackson.left_from, jackson.left_to, jackson.right_from, jackson.right_to) == \
        ("W Jackson St", 101, 199, 100, 198)
    # 0 is how NG911 says a side has no addresses.
    assert (dettloff.name, dettloff.left_from, dettloff.right_from) == ("Dettloff Dr", None, 400)


def test_tiger_full_names_import(run_import, tmp_path):
    result = run_import("streets", write(tmp_path / "tiger.geojson", TIGER, _lines(1)))

    assert result.exit_code == 0, result.output
    (road,) = _streets()
    assert (road.name, road.left_from, road.left_to, road.right_from) == ("Co Rd J", 1, 99, None)


def test_a_centreline_without_a_name_writes_nothing(run_import, tmp_path):
    rows = [dict(NG911[0]), {**NG911[1], "St_Name": None, "St_PosTyp": None}]
    result = run_import("streets", write(tmp_path / "bad.geojson", rows, _lines(2)))

    assert result.exit_code != 0
    assert "cannot be imported" in result.output and "name" in result.output
    assert db.session.scalar(select(func.count(Street.id))) == 0
