"""The survey map's filters: the parcels layer leaves out parcels that do not match."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import select

from server.core.accounts.service import create_user, issue_token
from server.core.extensions import db
from server.network.models import ClearWaterFinding
from server.office import survey_filters
from server.rules.models import Violation
from tests.support.survey import CITY_BBOX, inspect, unvisited_parcels

# The demo city's findings fall between May 2025 and autumn 2026.
SUMMER, AUTUMN = (date(2025, 6, 1), date(2025, 8, 31)), (date(2025, 9, 1), date(2025, 12, 31))


def _drawn(client, auth, query: str = "") -> dict[int, str]:
    r = client.get(f"/api/v1/survey/parcels?bbox={CITY_BBOX}{query}", headers=auth["superintendent"])
    assert r.status_code == 200, r.get_json()
    return {f["id"]: f["properties"]["survey_state"] for f in r.get_json()["features"]}


def _visits() -> list[tuple[int, date, str]]:
    """The demo city's visits: (parcel, day, inspector) of each finding."""
    return db.session.execute(select(ClearWaterFinding.parcel_id, ClearWaterFinding.observed_on,
                                     ClearWaterFinding.observed_by)).all()


@pytest.mark.parametrize("states", [("finding_open",), ("compliant", "not_visited")])
def test_state_filter_draws_only_those_states(client, auth, seeded_city, states):
    everything = _drawn(client, auth)
    drawn = _drawn(client, auth, "&state=" + ",".join(states))
    assert drawn == {pid: s for pid, s in everything.items() if s in states}
    assert 0 < len(drawn) < len(everything)


def test_inspector_filter_draws_the_parcels_they_visited(client, auth, seeded_city):
    name = sorted({v[2] for v in _visits()})[0]
    drawn = _drawn(client, auth, f"&inspector={name}")
    assert set(drawn) == {pid for pid, _, by in _visits() if by == name}
    assert 0 < len(drawn) < len(_drawn(client, auth))


@pytest.mark.parametrize("start, end", [SUMMER, AUTUMN])
def test_date_range_draws_the_parcels_visited_then(client, auth, seeded_city, start, end):
    drawn = _drawn(client, auth, f"&visited_from={start}&visited_to={end}")
    assert set(drawn) == {pid for pid, day, _ in _visits() if start <= day <= end}
    assert 0 < len(drawn) < len(_visits())


def test_range_and_inspector_are_one_visit(app, client, auth, seeded_city, templates):
    """Test Inspector in December: a parcel they saw in November and someone else saw in
    December is left out."""
    pid = unvisited_parcels(1)[0].id
    other = create_user("inspector2", "inspector", "correct horse battery", "Other Inspector")
    db.session.flush()
    headers = {"other": {"Authorization": f"Bearer {issue_token(other, 'pytest')[0]}"}}
    inspect(client, auth, pid, access="refused", finished_at="2026-11-30T09:40:00-06:00")
    inspect(client, headers, pid, role="other", access="refused", finished_at="2026-12-05T09:40:00-06:00")
    december = "&visited_from=2026-12-01&visited_to=2026-12-31"
    assert pid in _drawn(client, auth, "&inspector=Test Inspector")
    assert pid in _drawn(client, auth, december)
    assert pid not in _drawn(client, auth, "&inspector=Test Inspector" + december)
    assert pid in _drawn(client, auth, "&inspector=Other Inspector" + december)


def test_an_inspection_is_a_visit_on_its_day_by_its_inspector(client, auth, seeded_city, templates):
    pid = unvisited_parcels(1)[0].id
    inspect(client, auth, pid, access="refused", finished_at="2026-11-30T09:40:00-06:00")
    assert set(_drawn(client, auth, "&inspector=Test Inspector")) == {pid}
    assert pid in _drawn(client, auth, "&visited_from=2026-11-30&visited_to=2026-11-30")
    assert pid not in _drawn(client, auth, "&visited_to=2026-11-29")
    assert pid not in _drawn(client, auth, "&visited_from=2026-12-01")


def test_rule_filter_draws_parcels_with_an_open_violation_of_it(client, auth, seeded_city, templates):
    refused, other = (p.id for p in unvisited_parcels(2))
    inspect(client, auth, refused, access="refused")
    assert set(_drawn(client, auth, "&rule=SURVEY-ACCESS")) == {refused}
    assert _drawn(client, auth, "&rule=TRACER-WIRE") == {}
    violation = db.session.scalar(select(Violation).where(Violation.parcel_id == refused))
    violation.status = "resolved"
    db.session.flush()
    assert _drawn(client, auth, "&rule=SURVEY-ACCESS") == {}
    assert other not in _drawn(client, auth, "&rule=SURVEY-ACCESS&state=not_visited")


def test_filters_combine(client, auth, seeded_city, templates):
    refused = unvisited_parcels(1)[0].id
    inspect(client, auth, refused, access="refused")
    assert set(_drawn(client, auth, "&rule=SURVEY-ACCESS&state=access_refused")) == {refused}
    assert _drawn(client, auth, "&rule=SURVEY-ACCESS&state=compliant,finding_open") == {}


@pytest.mark.parametrize("query, field", [
    ("&state=burning", "state"),
    ("&state=", "state"),
    ("&rule=survey access", "rule"),
    ("&visited_from=May 1", "visited_from"),
    ("&visited_from=2025-06-01&visited_to=2025-05-01", "visited_to"),
    ("&inspector=", "inspector"),
    ("&colour=red", "colour"),
])
def test_bad_filters_are_422_naming_the_field(client, auth, query, field):
    r = client.get(f"/api/v1/survey/parcels?bbox={CITY_BBOX}{query}", headers=auth["clerk"])
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert error["code"] == "invalid_fields" and field in error["details"]["fields"]["query"]
    assert f"query.{field}:" in error["message"]


def test_filter_options_come_from_the_database(client, auth, seeded_city, templates):
    inspect(client, auth, unvisited_parcels(1)[0].id, access="refused")
    options = survey_filters.options()
    assert options["rules"] == ["SURVEY-ACCESS"]
    assert options["inspectors"] == sorted({v[2] for v in _visits()} | {"Test Inspector"})


def test_an_evening_visit_is_on_the_city_s_day_not_utc_s(client, auth, seeded_city, templates):
    # 21:10 in Arcadia on 27 November is 03:10 UTC on the 28th.
    pid = unvisited_parcels(1)[0].id
    inspect(client, auth, pid, access="refused", started_at="2026-11-28T03:00:00Z", finished_at="2026-11-28T03:10:00Z")
    assert pid in _drawn(client, auth, "&visited_from=2026-11-27&visited_to=2026-11-27")
    assert pid not in _drawn(client, auth, "&visited_from=2026-11-28&visited_to=2026-11-28")
