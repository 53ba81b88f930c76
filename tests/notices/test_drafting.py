"""Drafting: one notice per owner, parcel and kind; never two for one violation; held without an address."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from server.core.extensions import db
from server.notices.models import NoticeViolation
from tests.support.notices import NO_STREET, add_finding, add_parcel, add_violation, draft_one, post


def _draft(client, auth, body=None):
    r = post(client, auth, "superintendent", "/notices/draft", body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_one_notice_per_parcel_and_kind(client, auth):
    a, b = add_parcel(), add_parcel()
    va1, va2 = add_violation(a), add_violation(a, message="Two roof downspouts enter the building sewer")
    vb = add_violation(b)
    valve = add_violation(a, "BACKFLOW-VALVE", "§ 315-12D", "No backflow prevention valve")
    notices = {(n["parcel_id"], n["kind"]): n for n in _draft(client, auth)}
    assert set(notices) == {(a.id, "CW-DISCONNECT-60"), (b.id, "CW-DISCONNECT-60"), (a.id, "GENERAL-VIOLATION")}
    assert notices[(a.id, "CW-DISCONNECT-60")]["violation_ids"] == [va1.id, va2.id]
    assert notices[(b.id, "CW-DISCONNECT-60")]["violation_ids"] == [vb.id]
    general = notices[(a.id, "GENERAL-VIOLATION")]
    assert general["violation_ids"] == [valve.id] and general["sections"] == ["§ 315-12D"]
    assert general["owner_names"] == ["ANN KULIG"] and general["state"] == "draft"


@pytest.mark.parametrize(("rule_id", "kind"), [
    ("HOOKUP-365", "HOOKUP-365"), ("EXCLUSIVE-SEWER", "HOOKUP-365"), ("CW-DISCONNECT-60", "CW-DISCONNECT-60"),
    ("CW-REMOVE-150", "CW-REMOVE-150"), ("SURVEY-ACCESS", "SURVEY-ACCESS"), ("TAP-QUADRANT", "GENERAL-VIOLATION")])
def test_kind_follows_the_rule(client, auth, rule_id, kind):
    add_violation(add_parcel(), rule_id, "§ 315-11D")
    assert [n["kind"] for n in _draft(client, auth)] == [kind]


def test_clear_water_can_be_drafted_under_article_one(client, auth, parcel, violation):
    add_finding(parcel, "sump_pump")  # Art. I reaches sump pumps (issue 29)
    assert [n["kind"] for n in _draft(client, auth, {"clear_water_kind": "CW-REMOVE-150"})] == ["CW-REMOVE-150"]


def test_drafting_twice_drafts_nothing_new(client, auth, violation):
    first = _draft(client, auth)
    assert len(first) == 1
    assert _draft(client, auth) == []
    assert len(client.get("/api/v1/notices", headers=auth["clerk"]).get_json()) == 1


def test_a_new_violation_joins_the_parcels_draft(client, auth, parcel, violation):
    notice = draft_one(client, auth)
    later = add_violation(parcel, message="Foundation drain tile connected")
    again = _draft(client, auth)
    assert [n["id"] for n in again] == [notice["id"]]
    assert again[0]["violation_ids"] == [violation.id, later.id]


def test_a_violation_in_a_mailed_notice_is_not_drafted_again(client, auth, notice_in):
    notice_in("mailed")
    assert _draft(client, auth) == []


def test_a_withdrawn_notice_frees_its_violations(client, auth, notice_in, violation):
    old = notice_in("withdrawn")
    new = _draft(client, auth)
    assert [n["violation_ids"] for n in new] == [[violation.id]] and new[0]["id"] != old["id"]


def test_the_database_refuses_a_second_open_notice_for_a_violation(client, auth, violation):
    notice = draft_one(client, auth)
    other = post(client, auth, "superintendent", "/notices/draft").get_json()
    assert other == []
    from server.notices.models import Notice

    twin = Notice(kind="GENERAL-VIOLATION", parcel_id=notice["parcel_id"], parcel_number="x", owner_names=[],
                  sections=[], findings=[], state="draft")
    db.session.add(twin)
    db.session.flush()
    with pytest.raises(sa.exc.IntegrityError), db.session.begin_nested():
        db.session.add(NoticeViolation(notice_id=twin.id, violation_id=violation.id, closed=False))
        db.session.flush()


def test_no_mailing_address_holds_the_notice_with_the_reason(client, auth):
    parcel = add_parcel(NO_STREET)
    add_violation(parcel)
    [notice] = _draft(client, auth)
    assert notice["state"] == "held"
    assert "mailing street" in notice["held_reason"] and parcel.parcel_number in notice["held_reason"]
    listed = client.get("/api/v1/notices?state=held", headers=auth["clerk"]).get_json()
    assert [(n["id"], n["held_reason"]) for n in listed] == [(notice["id"], notice["held_reason"])]


def test_a_held_notice_cannot_be_approved_or_mailed(client, auth):
    add_violation(add_parcel(NO_STREET))
    [notice] = _draft(client, auth)
    assert post(client, auth, "superintendent", f"/notices/{notice['id']}/approve").status_code == 409
    r = post(client, auth, "clerk", "/mailings", {"notice_ids": [notice["id"]]})
    assert r.status_code == 409 and r.get_json()["error"]["details"]["state"] == "held"


def test_release_keeps_holding_while_the_address_is_still_missing(client, auth):
    add_violation(add_parcel(NO_STREET))
    [notice] = _draft(client, auth)
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/release")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "address_unusable"


@pytest.mark.parametrize("bad", [{"mailing_zip": "5461"}, {"mailing_state": "W1"}, {"mailing_city": " "}])
def test_a_broken_address_is_held_not_mailed(client, auth, bad):
    from tests.support.notices import ADDRESS

    add_violation(add_parcel({**ADDRESS, **bad}))
    [notice] = _draft(client, auth)
    assert notice["state"] == "held" and notice["held_reason"]


def test_list_filters(client, auth):
    a, b = add_parcel(), add_parcel(NO_STREET)
    add_violation(a), add_violation(b), add_violation(a, "SURVEY-ACCESS", "§ 315-12F")
    _draft(client, auth)

    def ids(query):
        r = client.get(f"/api/v1/notices?{query}", headers=auth["inspector"])
        assert r.status_code == 200
        return {(n["parcel_id"], n["kind"], n["state"]) for n in r.get_json()}

    assert ids(f"parcel_id={a.id}") == {(a.id, "CW-DISCONNECT-60", "draft"), (a.id, "SURVEY-ACCESS", "draft")}
    assert ids("kind=SURVEY-ACCESS") == {(a.id, "SURVEY-ACCESS", "draft")}
    assert ids("state=held") == {(b.id, "CW-DISCONNECT-60", "held")}
    r = client.get("/api/v1/notices?colour=red", headers=auth["inspector"])
    assert r.status_code == 422 and "colour" in r.get_json()["error"]["message"]


def test_the_database_keeps_no_list_of_notice_kinds_the_model_checks_the_registry(app, parcel):
    """A new kind is one declaration in server/notices/kinds.py: no CHECK lists the kinds
    (migration 0011 dropped it), and the model refuses a kind that is not declared."""
    from server.notices.models import Notice

    db.session.execute(sa.text(
        "INSERT INTO notices (kind, state, parcel_id, parcel_number, owner_names, sections, findings, version, "
        "created_at, updated_at) VALUES ('A-NEW-KIND', 'draft', :p, 'x', '[]', '[]', '[]', 1, "
        "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"), {"p": parcel.id})
    with pytest.raises(ValueError, match="unknown notice kind 'A-NEW-KIND'"):
        Notice(kind="A-NEW-KIND")


def test_the_list_pages_by_the_link_header_until_the_end(client, auth):
    """Four notices in pages of two: a Link with a cursor on the first page only, none after
    the last (full) page; a cursor with ``after`` is 422 naming it."""
    for _ in range(4):
        add_violation(add_parcel())
    drafted = sorted(n["id"] for n in _draft(client, auth))
    first = client.get("/api/v1/notices?limit=2&state=draft", headers=auth["clerk"])
    url = first.headers["Link"].removeprefix("<").removesuffix('>; rel="next"')
    assert "cursor=" in url and "state=draft" in url and "limit=2" in url
    last = client.get(url.removeprefix("http://localhost"), headers=auth["clerk"])
    assert [n["id"] for n in first.get_json() + last.get_json()] == drafted
    assert "Link" not in last.headers
    both = client.get(url.removeprefix("http://localhost") + f"&after={drafted[0]}", headers=auth["clerk"])
    assert both.status_code == 422 and "cursor" in both.get_json()["error"]["details"]["fields"]["query"]
