"""On save of one feature: the API answers with the violations that feature now has."""

from __future__ import annotations

from datetime import date

import pytest
import shapely

from server.core.extensions import db
from server.rules.models import Violation
from tests.support.gis_sites import Site
from tests.support.rules import stored

SITE = Site("EPSG:3071")
TAP = {"method": "saddle", "clock_position": 12.0}


def post(client, auth, layer, geometry, **props):
    r = client.post(f"/api/v1/{layer}", headers=auth["superintendent"],
                     json={"type": "Feature", "geometry": shapely.geometry.mapping(geometry), "properties": props})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def patch(client, auth, layer, fid, version, geometry=None, **props):
    body = {"type": "Feature", "properties": props}
    if geometry is not None:
        body["geometry"] = shapely.geometry.mapping(geometry)
    r = client.patch(f"/api/v1/{layer}/{fid}", json=body,
                     headers={**auth["inspector" if layer == "findings" else "superintendent"],
                              "If-Match": f'"{version}"'})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


@pytest.fixture
def main(client, auth) -> dict:
    """A 100 ft PVC main heading east, pipe joints every 13 ft."""
    return post(client, auth, "mains", SITE.line((0, 0), (100, 0)), material="PVC",
                segment_length_ft=13, kind="gravity")


@pytest.mark.parametrize(("gap_in", "reported"), [(23.9, True), (24.1, False)])
def test_a_tap_saved_near_another_returns_the_spacing_violation(client, auth, main, gap_in, reported):
    first = post(client, auth, "taps", SITE.pt(30), main_id=main["id"], **TAP)
    second = post(client, auth, "taps", SITE.pt_in(30 * 12 + gap_in), main_id=main["id"], **TAP)
    spacing = [v for v in second["violations"] if v["rule_id"] == "TAP-SPACING-24IN"]
    assert first["violations"] == []
    if reported:
        assert [(v["measured"], v["limit"], v["unit"], v["status"]) for v in spacing] == [
            (pytest.approx(23.9, abs=0.01), 24.0, "in", "open")]
        assert spacing[0]["section"] == "§ 315-13B(2)" and "23.9 in" in spacing[0]["message"]
    else:
        assert spacing == []


def test_moving_a_tap_clear_resolves_its_spacing_violation(client, auth, main):
    post(client, auth, "taps", SITE.pt(30), main_id=main["id"], **TAP)
    close = post(client, auth, "taps", SITE.pt_in(30 * 12 + 12), main_id=main["id"], **TAP)
    assert [v["rule_id"] for v in close["violations"]] == ["TAP-SPACING-24IN"]
    moved = patch(client, auth, "taps", close["id"], 1, SITE.pt(33))
    assert moved["violations"] == []
    (row,) = db.session.scalars(select_all())
    assert (row.status, row.resolved_at is not None) == ("resolved", True)


def test_saving_twice_does_not_duplicate_the_open_violation(client, auth, main):
    post(client, auth, "taps", SITE.pt(30), main_id=main["id"], **TAP)
    tap = post(client, auth, "taps", SITE.pt_in(30 * 12 + 12), main_id=main["id"], **TAP)
    again = patch(client, auth, "taps", tap["id"], 1, permit_number="TP-1")
    assert [v["id"] for v in again["violations"]] == [v["id"] for v in tap["violations"]]
    assert len(stored()) == 1


def test_fixing_a_planted_tap_of_the_demo_city_resolves_its_violation(client, auth, seeded_city_300):
    from server.rules import run as rules

    rules.run_network()
    rule_id, _, tap_id = next(d for d in seeded_city_300.deliberate if d[0] == "TAP-QUADRANT")
    version = client.get(f"/api/v1/taps/{tap_id}", headers=auth["inspector"]).headers["ETag"].strip('"')
    fixed = patch(client, auth, "taps", tap_id, version, clock_position=12.0)
    assert [v for v in fixed["violations"] if v["rule_id"] == rule_id] == []
    rows = db.session.scalars(select_all().where(Violation.rule_id == rule_id,
                                                 Violation.subject_id == tap_id)).all()
    assert [r.status for r in rows] == ["resolved"]
    # Every other planted break is still open.
    assert len(stored()) == rules.run_network().found


def test_breaking_a_clean_tap_of_the_demo_city_opens_one_violation(client, auth, seeded_city_300):
    from server.rules import run as rules

    rules.run_network()
    planted_taps = {i for rule, layer, i in seeded_city_300.deliberate if layer == "tap"}
    tap_id = next(t["id"] for t in seeded_city_300.taps
                  if t["id"] not in planted_taps and t["installed_on"] >= RULE_DAY)
    broken = patch(client, auth, "taps", tap_id, 1, clock_position=3.0)
    assert [(v["rule_id"], v["measured"], v["status"]) for v in broken["violations"]] == [
        ("TAP-QUADRANT", 3.0, "open")]


def test_a_tap_made_before_the_rule_pre_dates_it(client, auth, seeded_city_300):
    # § 315-13B(2) took effect 2009-08-13 (the rulebook's effective date): a tap made in
    # 1984-2001 off the upper quadrant is no violation of it, and no notice is drafted.
    from server.rules import run as rules

    rules.run_network()
    planted_taps = {i for rule, layer, i in seeded_city_300.deliberate if layer == "tap"}
    tap = next(t for t in seeded_city_300.taps if t["id"] not in planted_taps and t["installed_on"] < RULE_DAY)
    broken = patch(client, auth, "taps", tap["id"], 1, clock_position=3.0)
    (v,) = broken["violations"]
    assert (v["rule_id"], v["status"]) == ("TAP-QUADRANT", "waived")
    assert v["waiver_reason"] == (f"Pre-dates the rule: tap {tap['id']} installed {tap['installed_on'].isoformat()}, "
                                  "before § 315-13B(2) took effect on 2009-08-13")
    parcel_id = db.session.get(Violation, v["id"]).parcel_id
    drafted = client.post("/api/v1/notices/draft", json={"parcel_ids": [parcel_id]},
                          headers=auth["superintendent"]).get_json()
    assert drafted == []


def test_correcting_the_build_date_opens_the_violation(client, auth, seeded_city_300):
    planted_taps = {i for rule, layer, i in seeded_city_300.deliberate if layer == "tap"}
    tap = next(t for t in seeded_city_300.taps if t["id"] not in planted_taps and t["installed_on"] < RULE_DAY)
    patch(client, auth, "taps", tap["id"], 1, clock_position=3.0)
    fixed = patch(client, auth, "taps", tap["id"], 2, installed_on="2012-05-01")
    assert [(v["rule_id"], v["status"]) for v in fixed["violations"]] == [("TAP-QUADRANT", "open")]


RULE_DAY = date(2009, 8, 13)


def select_all():
    from sqlalchemy import select

    return select(Violation).execution_options(populate_existing=True)


@pytest.mark.parametrize("deleted", ["first", "second"])
def test_deleting_a_tap_closes_the_spacing_violation_it_broke(client, auth, main, deleted):
    """A delete runs the write hooks too: the violation must not stay open for a letter."""
    first = post(client, auth, "taps", SITE.pt(30), main_id=main["id"], **TAP)
    second = post(client, auth, "taps", SITE.pt_in(30 * 12 + 12), main_id=main["id"], **TAP)
    assert [v["rule_id"] for v in second["violations"]] == ["TAP-SPACING-24IN"]
    gone = first if deleted == "first" else second
    r = client.delete(f"/api/v1/taps/{gone['id']}", headers={**auth["superintendent"], "If-Match": '"1"'})
    assert r.status_code == 204
    (row,) = db.session.scalars(select_all())
    assert (row.status, row.resolved_at is not None) == ("resolved", True)
    assert stored() == []


def test_deleting_a_clean_tap_leaves_the_others_violations_open(client, auth, main):
    post(client, auth, "taps", SITE.pt(30), main_id=main["id"], **TAP)
    close = post(client, auth, "taps", SITE.pt_in(30 * 12 + 12), main_id=main["id"], **TAP)
    far = post(client, auth, "taps", SITE.pt(80), main_id=main["id"], **TAP)
    r = client.delete(f"/api/v1/taps/{far['id']}", headers={**auth["superintendent"], "If-Match": '"1"'})
    assert r.status_code == 204
    assert [v.id for v in stored()] == [close["violations"][0]["id"]]
