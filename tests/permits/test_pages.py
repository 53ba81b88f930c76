"""The Permits page: the counter application, steps from the browser, the register by
state with its CSV, the overdue lists, and the permit card (PDF with the QR code)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from server.core import city
from server.core.extensions import db
from server.permits.models import Permit
from tests.support.permits import VALID_UNTIL, apply, walk

FORM = {"kind": "new_connection", "applicant_name": "Dana Kowalski", "applicant_is_owner": "yes",
        "plumber_name": "Trempealeau Plumbing", "plumber_license": "222614-222",
        "plumber_license_expires": VALID_UNTIL.isoformat(), "wastes": "domestic sewage", "connection_kind": "gravity",
        "connection_size_in": "6", "inside_limits": "yes"}


def test_the_clerk_takes_an_application_over_the_counter(office, parcel):
    clerk = office("clerk1")
    response = clerk.post("/permits/new", {**FORM, "parcel_number": parcel.parcel_number})
    assert response.status_code == 302
    permit = db.session.scalar(select(Permit).filter_by(parcel_id=parcel.id))
    assert permit.state == "applied" and permit.plumber_license == "222614-222"
    page = clerk.get(response.headers["Location"]).get_data(as_text=True)
    assert f"Permit {permit.number}" in page and 'data-event="review"' in page


def test_a_refused_application_says_why_and_writes_nothing(office, parcel):
    clerk = office("clerk1")
    response = clerk.post("/permits/new", {**FORM, "parcel_number": parcel.parcel_number,
                                           "applicant_is_owner": "", "owner_consent_by": ""})
    assert response.status_code == 422
    assert "owner&#39;s written consent" in response.get_data(as_text=True)
    assert db.session.scalar(select(func.count(Permit.id)).filter_by(parcel_id=parcel.id)) == 0


def test_steps_from_the_browser_and_the_refusal_shown(client, auth, office, parcel):
    permit = apply(client, auth, parcel.id)
    walk(client, auth, permit["id"], "approved")
    clerk = office("clerk1")
    refused = clerk.post(f"/permits/{permit['id']}/step/issue", follow=True)
    assert "issued once its fees" in refused.get_data(as_text=True)
    clerk.post(f"/permits/{permit['id']}/step/pay", {"receipt_number": "R-77"})
    clerk.post(f"/permits/{permit['id']}/step/issue")
    assert db.session.get(Permit, permit["id"]).state == "issued"


def test_the_register_totals_fees_by_state_and_exports_csv(client, auth, office, parcel):
    permit = apply(client, auth, parcel.id, applicant_name="=HYPERLINK(\"x\")")
    walk(client, auth, permit["id"], "issued")
    clerk = office("clerk1")
    page = clerk.get("/permits/").get_data(as_text=True)
    assert 'data-state="issued"' in page and "$600.00" in page
    csv_text = clerk.get("/permits/register.csv?state=issued").get_data(as_text=True)
    lines = csv_text.splitlines()
    assert lines[0].startswith("number,kind,state,parcel_number")
    row = next(line for line in lines if permit["properties"]["number"] in line)
    assert ",issued," in row and "600.00" in row and "'=HYPERLINK" in row


def test_an_issued_permit_not_started_is_overdue(client, auth, office, parcel):
    permit = apply(client, auth, parcel.id)
    walk(client, auth, permit["id"], "issued")
    row = db.session.get(Permit, permit["id"])
    row.issued_on = city.current().today() - timedelta(days=31)
    db.session.flush()
    page = office("superintendent1").get("/permits/").get_data(as_text=True)
    assert 'data-overdue="not_started"' in page and row.number in page


def test_the_permit_card_prints_once_issued(client, auth, office, parcel):
    permit = apply(client, auth, parcel.id)
    clerk = office("clerk1")
    assert clerk.get(f"/permits/{permit['id']}/card.pdf").status_code == 409
    walk(client, auth, permit["id"], "issued")
    card = clerk.get(f"/permits/{permit['id']}/card.pdf")
    assert card.status_code == 200 and card.mimetype == "application/pdf"
    assert card.data.startswith(b"%PDF") and len(card.data) > 2000


def test_an_inspector_may_not_open_the_permits_page(office):
    assert office("inspector1").get("/permits/").status_code == 403


def test_the_survey_map_has_the_open_permits_layer_and_its_legend(office):
    page = office("superintendent1").get("/map").get_data(as_text=True)
    assert 'id="permit-legend"' in page and 'data-permit-state="inspection_requested"' in page
    assert '"permit_states"' in page and 'data-permit-state="closed"' not in page


def test_the_api_lists_open_permits_inside_a_box(client, auth, parcel):
    from geoalchemy2.shape import to_shape

    kept, dropped = apply(client, auth, parcel.id), apply(client, auth, parcel.id)
    walk(client, auth, dropped["id"], "closed")
    minx, miny, maxx, maxy = to_shape(parcel.geom).bounds
    inside = client.get(f"/api/v1/permits?open=true&bbox={minx},{miny},{maxx},{maxy}", headers=auth["clerk"])
    assert [f["id"] for f in inside.get_json()["features"]] == [kept["id"]]
    closed = client.get("/api/v1/permits?open=false", headers=auth["clerk"]).get_json()
    assert [f["id"] for f in closed["features"]] == [dropped["id"]]
    away = client.get("/api/v1/permits?open=true&bbox=10,10,10.1,10.1", headers=auth["clerk"]).get_json()
    assert away["features"] == []


def _counted() -> dict:
    """The register's totals as a count over every permit would give them."""
    from decimal import Decimal

    rows = db.session.execute(select(Permit.state, Permit.paid, Permit.fee_total)).all()
    out: dict = {}
    for state, paid, fee in rows:
        n, total = out.get(state, (0, Decimal("0.00")))
        out[state] = (n + 1, total + (fee if paid else 0))
    return out


def test_the_kept_totals_follow_every_write_to_permits(client, auth, parcel):
    from sqlalchemy import delete, update

    from server.permits import register

    first, second, third = (apply(client, auth, parcel.id) for _ in range(3))
    walk(client, auth, first["id"], "issued")
    walk(client, auth, second["id"], "closed")
    # Writes outside Lateral's services count too: the triggers keep the totals.
    db.session.execute(update(Permit).where(Permit.id == third["id"]).values(state="withdrawn"))
    kept = {t.state: (t.permits, t.fees_collected) for t in register.totals() if t.permits}
    assert kept == _counted()
    assert kept["issued"] == (1, 600) and kept["closed"] == (1, 600) and kept["withdrawn"] == (1, 0)
    from server.permits.models import PermitEvent

    db.session.execute(delete(PermitEvent).where(PermitEvent.permit_id == third["id"]))
    db.session.execute(delete(Permit).where(Permit.id == third["id"]))
    assert "withdrawn" not in {t.state for t in register.totals() if t.permits}
