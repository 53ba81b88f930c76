"""The portal is reachable by anyone, so it gives nothing away: a wrong code says nothing,
guesses are throttled per address and per code, another notice's code opens nothing here,
forms need the session's token, a replayed session runs out, and a code opens no staff page,
API route or OGC layer."""

from __future__ import annotations

import re
import time

from server.core.access import CODE_HOLDER, PUBLIC
from server.core.access.policy import policy, routes
from server.portal import codes
from server.portal import lookup as portal_lookup
from tests.support.notices import add_parcel, add_violation, draft_one, walk
from tests.support.portal import code_on_letter, form_token, lookup


def _another_code() -> str:
    return codes.new_code()


def test_every_failure_is_the_same_answer(client, lettered, auth):
    answers = [lookup(client, _another_code(), lettered["parcel_number"]),  # no such code
               lookup(client, lettered["code"], "206-99999-0000")]  # the code, another parcel
    assert {r.status_code for r in answers} == {404}
    assert len({r.get_data() for r in answers}) == 1
    assert answers[0].get_json()["error"]["code"] == "lookup_failed"
    assert client.get("/api/v1/portal/notice").status_code == 401


def test_another_notices_code_does_not_open_this_parcel(client, auth, lettered):
    other_parcel = add_parcel()
    add_violation(other_parcel)
    other = walk(client, auth, draft_one(client, auth)["id"], "delivered")
    other_code = code_on_letter(other["id"])
    assert lookup(client, other_code, lettered["parcel_number"]).status_code == 404
    r = lookup(client, other_code, other["parcel_number"])
    assert r.status_code == 200 and r.get_json()["parcel"]["parcel_number"] == other["parcel_number"]


def test_a_mistyped_code_is_told_as_a_typo_and_counted(client, lettered):
    c = lettered["code"]
    typo = c[:-1] + ("0" if c[-1] != "0" else "1")
    r = lookup(client, typo, lettered["parcel_number"])
    assert r.status_code == 422 and r.get_json()["error"]["details"]["fields"]["code"]


def test_guesses_from_one_address_are_throttled_even_with_the_right_code(app, client, lettered):
    limit = int(app.config["PORTAL_LOOKUPS_PER_ADDRESS"].split()[0])
    for _ in range(limit):
        assert lookup(client, _another_code(), lettered["parcel_number"]).status_code == 404
    r = lookup(client, lettered["code"], lettered["parcel_number"])
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert r.get_json()["error"]["code"] == "too_many_lookups"


def test_guesses_at_one_code_are_throttled_from_any_address(app, client, lettered):
    limit = int(app.config["PORTAL_LOOKUPS_PER_CODE"].split()[0])
    for n in range(limit):
        r = client.post("/api/v1/portal/lookup", json={"code": lettered["code"], "parcel_number": f"206-0{n}"},
                        environ_base={"REMOTE_ADDR": f"10.0.0.{n + 1}"})
        assert r.status_code == 404
    right = {"code": lettered["code"], "parcel_number": lettered["parcel_number"]}
    r = client.post("/api/v1/portal/lookup", json=right, environ_base={"REMOTE_ADDR": "10.0.1.1"})
    assert r.status_code == 429


def test_the_form_needs_the_sessions_token(client, lettered):
    form_token(client)
    r = client.post("/portal/", data={"code": lettered["code"], "parcel_number": lettered["parcel_number"]})
    assert r.status_code == 400
    assert client.get("/portal/notice").status_code == 302  # not opened


def test_a_replayed_session_runs_out(client, lettered, monkeypatch):
    lookup(client, lettered["code"], lettered["parcel_number"])
    assert client.get("/api/v1/portal/notice").status_code == 200
    later = time.time() + portal_lookup.SESSION_SECONDS + 1
    monkeypatch.setattr(portal_lookup.time, "time", lambda: later)
    assert client.get("/api/v1/portal/notice").status_code == 401


def test_leaving_closes_the_notice_in_this_browser(client, lettered):
    lookup(client, lettered["code"], lettered["parcel_number"])
    token = form_token(client, "/portal/notice")
    assert client.post("/portal/leave", data={"csrf_token": token}).status_code == 302
    assert client.get("/portal/notice").headers["Location"].endswith("/portal/")


def _path(app, rule) -> str:
    values = {arg: 1 if hasattr(rule._converters[arg], "num_convert") else "x" for arg in rule.arguments}
    return app.url_map.bind("localhost").build(rule.endpoint, values)


def test_a_code_opens_no_staff_page_api_route_or_ogc_layer(app, client, lettered):
    assert lookup(client, lettered["code"], lettered["parcel_number"]).status_code == 200
    table = policy(app)
    rules = {r.endpoint: r for r in app.url_map.iter_rules()}
    checked = 0
    for _, method, endpoint in routes(app):
        declared = table[endpoint][method]
        if method != "GET" or declared.allows(CODE_HOLDER):
            assert declared.roles == PUBLIC or CODE_HOLDER not in declared.roles or \
                endpoint.startswith(("portal", "portal_pages")), endpoint
            continue
        r = client.get(_path(app, rules[endpoint]), headers={"Accept": "application/json"})
        assert r.status_code in (302, 401), (endpoint, r.status_code)
        if r.status_code == 302:
            assert re.search(r"/login\b", r.headers["Location"]), (endpoint, r.headers["Location"])
        checked += 1
    assert checked > 50


def test_the_code_is_no_bearer_token(client, lettered):
    for scheme in ("Bearer", "Basic"):
        r = client.get("/api/v1/notices", headers={"Authorization": f"{scheme} {lettered['code']}"})
        assert r.status_code == 401
