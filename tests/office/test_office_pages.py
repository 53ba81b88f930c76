"""The superintendent's pages: rules and violations (run, filter, evidence, waive), drafting
notices with a letter preview, and the review of inspections and the sync queue.

Who may open each, what a bad form does (nothing), and what a good one does."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader
from sqlalchemy import func, select

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.field.models import SyncConflict
from server.network.models import Tap
from server.notices.models import Notice
from server.rules.models import Violation
from tests.support.notices import NO_STREET, add_parcel, add_violation
from tests.support.sync import assigned_tap, edit, push, record, sump_pump, survey

PAGES = ["/rules/", "/rules/notices", "/review/"]


def _status(vid: int) -> str:
    db.session.expire_all()
    return db.session.get(Violation, vid).status


def _count(model, *where) -> int:
    db.session.expire_all()
    return db.session.scalar(select(func.count()).select_from(model).where(*where))


# ---------------------------------------------------------------- who may


@pytest.mark.parametrize("path", PAGES)
def test_anonymous_is_sent_to_the_login_form(client, path):
    r = client.get(path)
    assert r.status_code == 302 and "/login" in r.headers["Location"]


@pytest.mark.parametrize("username", ["clerk1", "inspector1"])
@pytest.mark.parametrize("path", PAGES)
def test_clerk_and_inspector_are_refused(desk, username, path):
    r = desk(username).client.get(path)
    assert r.status_code == 403
    assert "superintendent" in r.get_data(as_text=True)


@pytest.mark.parametrize("username", ["superintendent1", "admin1"])
@pytest.mark.parametrize("path", PAGES)
def test_superintendent_and_admin_open_each_page(desk, username, path):
    assert desk(username).page(path)


def test_an_inspector_cannot_run_the_rules_or_decide_an_edit(desk):
    o = desk("inspector1")
    with o.client.session_transaction() as session:  # an inspector has no page to take it from
        token = session.get("csrf_token", "x")
    assert o.client.post("/rules/run", data={"csrf_token": token}).status_code == 403
    assert o.client.post("/review/conflicts/1", data={"csrf_token": token, "decision": "reject"}).status_code == 403
    assert _count(AuditEvent, AuditEvent.action == "rules_run") == 0


def test_only_the_superintendent_waives(desk):
    v = add_violation(add_parcel())
    o = desk("admin1")
    r = o.post(f"/rules/violations/{v.id}/waive", {"reason": "built before the rule"}, follow=False)
    assert r.status_code == 403 and _status(v.id) == "open"
    assert "Only the superintendent waives" in o.page(f"/rules/violations/{v.id}")


# ---------------------------------------------------------------- run and list


def test_running_the_rules_from_the_page_reports_the_counts(desk):
    o = desk("superintendent1")
    r = o.post("/rules/run")
    assert r.status_code == 200 and "Checked 0 features" in r.get_data(as_text=True)
    js = o.client.post("/rules/run", data={"csrf_token": o.token()}, headers={"Accept": "application/json"})
    assert js.status_code == 200 and js.get_json()["opened"] == 0 and "breaches found" in js.get_json()["message"]
    assert _count(AuditEvent, AuditEvent.action == "rules_run") == 2


def test_the_page_script_reads_the_run_as_it_goes(desk):
    """``application/x-ndjson``: the load, each rule before it is checked, the reconciling,
    then the counts (the run's own thread and transaction)."""
    import json

    from server.rules.violations import rule_registry

    o = desk("superintendent1")
    r = o.client.post("/rules/run", data={"csrf_token": o.token()}, headers={"Accept": "application/x-ndjson"})
    assert r.status_code == 200 and r.mimetype == "application/x-ndjson"
    lines = [json.loads(line) for line in r.get_data(as_text=True).splitlines()]
    rules = [r["id"] for r in rule_registry()]
    assert [m["stage"] for m in lines] == ["load", *["check"] * len(rules), "reconcile", "done"]
    assert [(m["done"], m["total"], m["rule"]) for m in lines[1:-2]] == [
        (i, len(rules), rule) for i, rule in enumerate(rules)]
    assert lines[-1]["opened"] == 0 and lines[-1]["message"].startswith("Checked 0 features")
    assert _count(AuditEvent, AuditEvent.action == "rules_run") == 1


def test_an_unknown_rule_or_a_missing_token_runs_nothing(desk):
    o = desk("superintendent1")
    js = o.client.post("/rules/run", data={"csrf_token": o.token(), "rule": "NO-SUCH-RULE"},
                       headers={"Accept": "application/json"})
    assert js.status_code == 422 and "NO-SUCH-RULE" in js.get_json()["error"]["message"]
    streamed = o.client.post("/rules/run", data={"csrf_token": o.token(), "rule": "NO-SUCH-RULE"},
                             headers={"Accept": "application/x-ndjson"})
    assert streamed.status_code == 422
    page = o.post("/rules/run", {"rule": "NO-SUCH-RULE"})
    assert "no rule" in page.get_data(as_text=True)
    assert o.client.post("/rules/run", data={}).status_code == 400
    assert _count(AuditEvent, AuditEvent.action == "rules_run") == 0


def test_the_list_filters_by_rule_state_street_and_date(desk):
    main_st = add_parcel()  # "<n> W Main St"
    sump = add_violation(main_st)
    tap = add_violation(add_parcel(), "TAP-SADDLE", "§ 315-9B", "Tap made without a saddle")
    o = desk("superintendent1")
    html = o.page("/rules/")
    assert f'data-violation="{sump.id}"' in html and f'data-violation="{tap.id}"' in html
    html = o.page("/rules/?rule_id=TAP-SADDLE")
    assert f'data-violation="{tap.id}"' in html and f'data-violation="{sump.id}"' not in html
    html = o.page(f"/rules/?place={main_st.site_address.split()[0]}+W+main")
    assert f'data-violation="{sump.id}"' in html and f'data-violation="{tap.id}"' not in html
    assert 'data-total="0"' in o.page("/rules/?status=waived")
    assert 'data-total="0"' in o.page("/rules/?opened_to=2000-01-01")


@pytest.mark.parametrize("query, field", [("status=closed", "status"), ("opened_from=yesterday", "opened_from"),
                                          ("rule_id=NOPE", "rule_id"),
                                          ("opened_from=2026-02-01&opened_to=2026-01-01", "opened_to")])
def test_bad_filters_say_what_is_wrong_and_list_nothing(desk, query, field):
    add_violation(add_parcel())
    r = desk("superintendent1").client.get(f"/rules/?{query}")
    html = r.get_data(as_text=True)
    assert r.status_code == 422
    assert f'id="err-{field}"' in html and "data-filter-errors" in html and "data-violation=" not in html


def test_the_violation_page_shows_its_evidence_and_map_data(desk):
    v = add_violation(add_parcel(owner="MARGARET SOBOTTA"))
    html = desk("superintendent1").page(f"/rules/violations/{v.id}")
    assert "Sump pump discharges to the floor drain" in html and "§ 315-13D" in html
    assert 'id="violation-shapes"' in html and '"parcel": {"coordinates"' in html
    assert "MARGARET SOBOTTA" in html and 'name="reason"' in html


def test_an_unknown_violation_is_404(desk):
    assert desk("superintendent1").client.get("/rules/violations/999999").status_code == 404


# ---------------------------------------------------------------- waive


def test_waiving_needs_a_reason_and_keeps_it(desk):
    v = add_violation(add_parcel())
    o = desk("superintendent1")
    r = o.post(f"/rules/violations/{v.id}/waive", {"reason": "   "})
    assert "Give the reason" in r.get_data(as_text=True) and _status(v.id) == "open"
    r = o.post(f"/rules/violations/{v.id}/waive", {"reason": "Council variance of 2026-03-02"})
    assert _status(v.id) == "waived" and "Council variance of 2026-03-02" in r.get_data(as_text=True)
    again = o.post(f"/rules/violations/{v.id}/waive", {"reason": "twice"})
    assert "only an open violation can be waived" in again.get_data(as_text=True)
    assert db.session.get(Violation, v.id).waiver_reason == "Council variance of 2026-03-02"


def test_a_waiver_without_the_token_writes_nothing(desk):
    v = add_violation(add_parcel())
    o = desk("superintendent1")
    assert o.client.post(f"/rules/violations/{v.id}/waive", data={"reason": "x"}).status_code == 400
    assert _status(v.id) == "open"


# ---------------------------------------------------------------- drafting notices


def test_drafting_takes_the_ticked_parcels_only_and_offers_each_letter(desk):
    one, other = add_parcel(owner="JOSEPH WEISS"), add_parcel()
    add_violation(one), add_violation(other)
    o = desk("superintendent1")
    html = o.page("/rules/notices")
    assert f'data-parcel="{one.id}"' in html and f'data-parcel="{other.id}"' in html
    r = o.post("/rules/notices", {"parcel_id": str(one.id)})
    assert "Drafted 1 notice (" in r.get_data(as_text=True)
    [notice] = db.session.scalars(select(Notice)).all()
    assert notice.parcel_id == one.id and notice.state == "draft"
    html = o.page("/rules/notices")
    assert f'data-parcel="{one.id}"' not in html and f'data-parcel="{other.id}"' in html
    assert f"/rules/notices/{notice.id}/preview" in html and "/desk/#drafts" in html

    assert f'data-preview="{notice.id}"' in o.page("/desk/")  # beside Approve on the desk
    assert f'data-preview="{notice.id}"' not in desk("clerk1").page("/desk/")  # not the clerk's
    o = desk("superintendent1")
    preview = o.page(f"/rules/notices/{notice.id}/preview")
    assert "JOSEPH WEISS" in preview and "Sump pump discharges to the floor drain" in preview
    assert "No later than" in preview
    pdf = o.client.get(f"/rules/notices/{notice.id}/preview.pdf")
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.data)).pages)
    assert "JOSEPH WEISS" in text and "Sump pump discharges to the floor drain" in text
    db.session.expire_all()
    assert (notice.state, notice.article_number, notice.letter_pdf) == ("draft", None, None)  # nothing stored


@pytest.mark.parametrize("form, words", [({}, "Tick at least one parcel"), ({"parcel_id": "x"}, "not parcel ids"),
                                         ({"parcel_id": "1", "clear_water_kind": "NOPE"}, "Choose a clear-water"),
                                         ({"parcel_id": "999999"}, "Nothing to draft")])
def test_a_bad_draft_form_drafts_nothing(desk, form, words):
    add_violation(add_parcel())
    r = desk("superintendent1").post("/rules/notices", form)
    assert words in r.get_data(as_text=True)
    assert _count(Notice) == 0


def test_a_held_notice_has_no_preview(desk):
    add_violation(add_parcel(NO_STREET))
    o = desk("superintendent1")
    o.post("/rules/notices", {"parcel_id": str(db.session.scalar(select(Violation.parcel_id)))})
    notice = db.session.scalars(select(Notice)).one()
    assert notice.state == "held"
    r = o.client.get(f"/rules/notices/{notice.id}/preview")
    assert r.status_code == 409 and "it is held" in r.get_data(as_text=True)
    assert o.client.get(f"/rules/notices/{notice.id}/preview.pdf").status_code == 409


# ---------------------------------------------------------------- review


def test_review_lists_finished_inspections_with_result_and_photos(desk, client, auth):
    from server.field.checklist_templates import load_templates
    from tests.support.sync import make_feature

    load_templates()
    parcel = make_feature("parcels", parcel_number="206-00777-0000")
    [result] = push(client, auth["inspector"], record(survey(parcel, [sump_pump()])))
    assert result["status"] == 201, result
    o = desk("superintendent1")
    html = o.page("/review/")
    assert 'data-result="fail"' in html and "206-00777-0000" in html
    assert "not received yet" in html  # the photo's digest is named, the photo has not arrived
    assert 'data-result="fail"' not in o.page("/review/?result=pass")
    r = o.client.get("/review/?result=maybe")
    assert r.status_code == 422 and "is not a result" in r.get_data(as_text=True)


def test_the_queue_accepts_and_rejects_held_edits(desk, client, auth):
    tap = assigned_tap()
    push(client, auth["superintendent"], edit(tap, 1, clock_position=11.5))
    accept = push(client, auth["inspector"], edit(tap, 1, method="saddle"))[0]["conflict_id"]
    reject = push(client, auth["inspector"], edit(tap, 1, clock_position=3.0))[0]["conflict_id"]
    o = desk("superintendent1")
    html = o.page("/review/")
    assert f'data-conflict="{accept}"' in html and f'data-conflict="{reject}"' in html
    assert "saddle" in html

    bad = o.post(f"/review/conflicts/{accept}", {"decision": "maybe"})
    assert "Choose Accept or Reject" in bad.get_data(as_text=True)
    assert _count(SyncConflict, SyncConflict.status == "open") == 2

    assert "is accepted and applied" in o.post(f"/review/conflicts/{accept}", {"decision": "accept"}).get_data(True)
    assert "is rejected" in o.post(f"/review/conflicts/{reject}", {"decision": "reject"}).get_data(as_text=True)
    db.session.expire_all()
    row = db.session.get(Tap, tap)
    assert (row.method, row.clock_position) == ("saddle", 11.5)
    again = o.post(f"/review/conflicts/{reject}", {"decision": "accept"})
    assert "was already discarded" in again.get_data(as_text=True)
    assert o.client.post(f"/review/conflicts/{reject}", data={"decision": "accept"}).status_code == 400
    assert o.post("/review/conflicts/999999", {"decision": "reject"}, follow=False).status_code == 404


# ---------------------------------------------------------------- text from the database is text


def test_database_text_is_never_markup_on_these_pages(desk):
    hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    parcel = add_parcel(owner=hostile)
    parcel.site_address = f"{hostile} Main St"
    v = add_violation(parcel, message=hostile)
    o = desk("superintendent1")
    o.post(f"/rules/violations/{v.id}/waive", {"reason": "</textarea>" + hostile})
    v2 = add_violation(parcel, message=hostile)
    o.post("/rules/notices", {"parcel_id": str(parcel.id)})
    notice = db.session.scalars(select(Notice)).one()
    for path in ("/rules/?status=all", f"/rules/violations/{v.id}", f"/rules/violations/{v2.id}",
                 "/rules/notices", f"/rules/notices/{notice.id}/preview", f"/rules/?place={hostile}"):
        html = o.page(path) if "place=" not in path else o.client.get(path).get_data(as_text=True)
        assert "<img src=x" not in html and "<script>alert" not in html, path
        assert "&lt;img src=x" in html or "&lt;script&gt;" in html or "place=" in path, path
