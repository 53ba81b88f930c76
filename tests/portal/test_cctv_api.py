"""Plumbers' CCTV submittals over the API on both databases: the report as JSON with the
form's checks (a bad value named, nothing written), the plumber's own list and one
submittal, the video over the same tus endpoint with a token, the certificate's link;
another plumber's submittal is 404."""

from __future__ import annotations

import base64

import pytest
from sqlalchemy import func, select

from server.core import city
from server.core.extensions import db
from server.portal.cctv_models import CctvObservation, CctvSubmittal
from tests.support.cctv import add_plumber, mp4_bytes, webm_bytes
from tests.support.office import audit_rows
from tests.support.plumbers import bearer

REPORT = [{"code": "FM", "distance_ft": 23.5, "clock": 12, "grade": 4, "seconds": 1, "remark": "under the drive"},
          {"code": "RMJ", "distance_ft": "41", "clock": "3", "grade": "2"}]


def _body(number: str, **changes) -> dict:
    return {"parcel_number": number, "inspected_on": city.current().today().isoformat(), "observations": REPORT,
            **changes}


def _count(model) -> int:
    return db.session.scalar(select(func.count()).select_from(model))


def _tus(client, headers, submittal_id: int, data: bytes, filename: str = "lateral.mp4"):
    meta = ",".join(f"{k} {base64.b64encode(v.encode()).decode()}"
                    for k, v in {"submittal_id": str(submittal_id), "filename": filename}.items())
    return client.post("/api/v1/portal/cctv/uploads", data=data, headers={
        **headers, "Tus-Resumable": "1.0.0", "Upload-Length": str(len(data)), "Upload-Metadata": meta,
        "Content-Type": "application/offset+octet-stream"})


@pytest.fixture
def api_plumber(app, parcel):
    user = add_plumber()
    db.session.commit()
    return user


def test_a_report_sent_as_json_is_kept_and_waits_for_its_video(app, api_plumber, parcel):
    api, headers = app.test_client(), bearer(api_plumber)
    before = audit_rows()  # after the token's issue
    r = api.post("/api/v1/portal/cctv", json=_body(parcel.parcel_number), headers=headers)
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert (body["state"], body["parcel_number"], body["certificate"], body["decision"]) == (
        "awaiting_video", parcel.parcel_number, None, None)
    assert body["upload"] == {"endpoint": "/api/v1/portal/cctv/uploads", "metadata": {"submittal_id": str(body["id"])}}
    assert [(o["code"], o["distance_ft"], o["clock"], o["grade"], o["seconds"]) for o in body["observations"]] == [
        ("FM", 23.5, 12, 4, 1.0), ("RMJ", 41.0, 3, 2, None)]
    assert audit_rows() == before + 1
    listed = api.get("/api/v1/portal/cctv", headers=headers).get_json()["submittals"]
    assert [s["id"] for s in listed] == [body["id"]]


@pytest.mark.parametrize(("change", "named"), [
    ({"observations": [{**REPORT[0], "code": "ZZZ"}]}, "observations.1.code"),
    ({"observations": [REPORT[0], {**REPORT[1], "clock": 13}]}, "observations.2.clock"),
    ({"observations": [{**REPORT[0], "distance_ft": "far"}]}, "observations.1.distance_ft"),
    ({"observations": []}, "observations"),
    ({"inspected_on": "2999-01-01"}, "inspected_on"),
    ({"parcel_number": "no-such-parcel"}, "parcel_number"),
    ({"permit_number": "P-0000-999"}, "permit_number"),
])
def test_a_bad_value_is_named_and_nothing_is_written(app, api_plumber, parcel, change, named):
    headers = bearer(api_plumber)  # the token's issue is audited
    before = (_count(CctvSubmittal), _count(CctvObservation), audit_rows())
    r = app.test_client().post("/api/v1/portal/cctv", json=_body(parcel.parcel_number, **change), headers=headers)
    assert r.status_code == 422, r.get_json()
    error = r.get_json()["error"]
    assert error["code"] == "invalid_fields" and named in error["details"]["fields"]
    assert (_count(CctvSubmittal), _count(CctvObservation), audit_rows()) == before


def test_a_missing_field_and_a_wrong_type_are_the_contracts_error(app, api_plumber, parcel):
    api = app.test_client()
    for body in ({"inspected_on": "2026-01-01", "observations": REPORT},
                 _body(parcel.parcel_number, observations=[{**REPORT[0], "grade": True}])):
        r = api.post("/api/v1/portal/cctv", json=body, headers=bearer(api_plumber))
        assert r.status_code == 422 and r.get_json()["error"]["code"] == "invalid_fields"
    assert _count(CctvSubmittal) == 0


@pytest.mark.parametrize(("data", "kind"), [(mp4_bytes(), "video/mp4"), (webm_bytes(), "video/webm")])
def test_the_video_goes_over_tus_with_the_token_and_the_submittal_is_received(app, api_plumber, parcel, data, kind):
    api, headers = app.test_client(), bearer(api_plumber)
    created = api.post("/api/v1/portal/cctv", json=_body(parcel.parcel_number), headers=headers).get_json()
    r = _tus(api, headers, created["id"], data)
    assert r.status_code == 201, r.get_data(as_text=True)
    body = api.get(f"/api/v1/portal/cctv/{created['id']}", headers=headers).get_json()
    assert body["state"] == "received" and body["upload"] is None
    assert (body["video"]["media_type"], body["video"]["size"]) == (kind, len(data))


def test_the_certificate_is_linked_and_downloaded(app, office, api_plumber, parcel):
    api, headers = app.test_client(), bearer(api_plumber)
    created = api.post("/api/v1/portal/cctv", json=_body(parcel.parcel_number), headers=headers).get_json()
    assert _tus(api, headers, created["id"], mp4_bytes()).status_code == 201
    assert office("superintendent1").post(f"/review/cctv/{created['id']}/certify",
                                          data={"reason": "clean pipe"}).status_code == 302
    body = api.get(f"/api/v1/portal/cctv/{created['id']}", headers=headers).get_json()
    assert body["state"] == "certified" and body["decision"]["note"] == "clean pipe"
    assert body["certificate"]["url"] == f"/api/v1/portal/cctv/{created['id']}/certificate.pdf"
    pdf = api.get(body["certificate"]["url"], headers=headers)
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf" and pdf.data.startswith(b"%PDF")


def test_another_plumbers_submittal_is_the_same_404_as_none(app, api_plumber, parcel):
    api = app.test_client()
    created = api.post("/api/v1/portal/cctv", json=_body(parcel.parcel_number), headers=bearer(api_plumber)).get_json()
    other = add_plumber()
    db.session.commit()
    headers = bearer(other)
    for submittal_id in (created["id"], created["id"] + 1000):
        for tail in ("", "/certificate.pdf"):
            r = api.get(f"/api/v1/portal/cctv/{submittal_id}{tail}", headers=headers)
            assert r.status_code == 404 and parcel.parcel_number not in r.get_data(as_text=True)
    assert api.get("/api/v1/portal/cctv", headers=headers).get_json() == {"submittals": []}
    assert _tus(api, headers, created["id"], mp4_bytes()).status_code == 404
    assert db.session.get(CctvSubmittal, created["id"]).state == "awaiting_video"


def test_staff_and_strangers_cannot_use_it(app, office, parcel):
    assert app.test_client().get("/api/v1/portal/cctv").status_code == 401
    assert app.test_client().post("/api/v1/portal/cctv", json=_body(parcel.parcel_number)).status_code in (401, 403)
    assert office("superintendent1").get("/api/v1/portal/cctv").status_code == 403
