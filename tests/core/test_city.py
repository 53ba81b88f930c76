"""One city per app (``server/core/city.py``): its rulebook, measurement CRS and calendar come
from the app's config, so two apps in one process each measure with their own numbers."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import shapely

from gis.crs import MeasurementCRSError
from gis.rulebook import RulebookError
from server.core import city
from server.core.accounts.service import create_user, issue_token
from server.core.city import City
from server.core.extensions import db
from server.rules import violations as violation_service
from tests.support.databases import fresh_app
from tests.support.gis_sites import Site

OTHERTON = Path(__file__).parent / "rulebooks" / "otherton.toml"
SITE = Site("EPSG:3071")
TAP = {"method": "saddle", "clock_position": 12.0}
GAP_IN = 30.0  # clear of Arcadia's 24 in, too close for Otherton's 36 in


def spacing_reported(client, headers) -> list[dict]:
    """A main and two taps ``GAP_IN`` apart, saved through the API: the spacing violations."""
    def post(layer, geometry, **props):
        r = client.post(f"/api/v1/{layer}", headers=headers, json={
            "type": "Feature", "geometry": shapely.geometry.mapping(geometry), "properties": props})
        assert r.status_code == 201, r.get_json()
        return r.get_json()

    main = post("mains", SITE.line((0, 0), (100, 0)), material="PVC", segment_length_ft=13, kind="gravity")
    post("taps", SITE.pt(30), main_id=main["id"], **TAP)
    second = post("taps", SITE.pt_in(30 * 12 + GAP_IN), main_id=main["id"], **TAP)
    return [v for v in second["violations"] if v["rule_id"] == "TAP-SPACING-24IN"]


def test_an_app_made_for_another_rulebook_measures_with_its_numbers(app, client, auth, db_kind, tmp_path):
    """``create_app({"LATERAL_RULEBOOK": other})`` once measured with Arcadia's numbers."""
    assert spacing_reported(client, auth["superintendent"]) == []  # Arcadia: 24 in
    with fresh_app(db_kind, tmp_path, LATERAL_RULEBOOK=str(OTHERTON)) as other:
        with other.app_context():
            token = issue_token(create_user("super9", "superintendent", "pw-otherton-1", "Otherton"), "t")[0]
            db.session.commit()
        found = spacing_reported(other.test_client(), {"Authorization": f"Bearer {token}"})
    assert [(v["limit"], v["section"]) for v in found] == [(36.0, "§ 9-4B")]
    assert found[0]["measured"] == pytest.approx(GAP_IN, abs=0.01)


def test_two_apps_in_one_process_each_see_their_own_city(app, db_kind, tmp_path):
    with fresh_app(db_kind, tmp_path, LATERAL_RULEBOOK=str(OTHERTON)) as other:
        with other.app_context():
            theirs = city.current()
            their_rules = {r["id"]: r for r in violation_service.rule_registry()}
        ours = city.current()
        our_rules = {r["id"]: r for r in violation_service.rule_registry()}
    assert (ours.rulebook.name, theirs.rulebook.name) == ("arcadia", "otherton")
    assert (ours.measurement_crs, theirs.measurement_crs) == ("EPSG:3071", "EPSG:8114")
    assert (ours.time_zone.key, theirs.time_zone.key) == ("America/Chicago", "America/Denver")
    spacing = "TAP-SPACING-24IN"
    assert (our_rules[spacing]["parameters"]["min_spacing_in"],
            their_rules[spacing]["parameters"]["min_spacing_in"]) == (24.0, 36.0)
    assert (our_rules[spacing]["section"], their_rules[spacing]["section"]) == ("§ 315-13B(2)", "§ 9-4B")


def test_today_is_counted_in_each_city_s_zone():
    # 11:30 pm on 30 November in Chicago is 10:30 pm in Denver and already 1 December in UTC.
    now = datetime(2026, 12, 1, 5, 30, tzinfo=UTC)
    arcadia, otherton = City.from_config({}), City.from_config({"LATERAL_RULEBOOK": str(OTHERTON)})
    assert arcadia.today(now) == otherton.today(now) == date(2026, 11, 30)
    assert arcadia.start_of(date(2026, 11, 30)) == datetime(2026, 11, 30, 6, tzinfo=UTC)
    assert otherton.start_of(date(2026, 11, 30)) == datetime(2026, 11, 30, 7, tzinfo=UTC)


def test_the_measurement_crs_setting_overrides_the_rulebook_s():
    here = City.from_config({"LATERAL_MEASUREMENT_CRS": "EPSG:7577"})
    assert (here.rulebook.name, here.measurement_crs, here.measurer.crs) == ("arcadia", "EPSG:7577", "EPSG:7577")
    assert City.from_config({}).measurer.crs == "EPSG:3071"


@pytest.mark.parametrize(("setting", "error"), [
    ({"LATERAL_MEASUREMENT_CRS": "EPSG:4326"}, MeasurementCRSError),  # degrees measure nothing
    ({"LATERAL_RULEBOOK": "atlantis"}, RulebookError),
])
def test_a_bad_city_setting_fails_at_start_up(setting, error):
    with pytest.raises(error):
        City.from_config(setting)


def test_the_rulebook_is_not_read_from_the_environment(monkeypatch):
    from gis.rulebook import load_rulebook

    monkeypatch.setenv("LATERAL_RULEBOOK", str(OTHERTON))
    assert load_rulebook("arcadia").name == "arcadia"
