"""Sample features for every layer, near Arcadia, Wisconsin (44.253 N, 91.501 W), and a
walk's steps over manholes: add some, delete one, read a page and its ``next`` link."""

from __future__ import annotations

from sqlalchemy import func, select

from server.core.audit.models import AuditEvent
from server.core.extensions import db

X, Y = -91.501, 44.253


def square(dx=0.0, dy=0.0, size=0.0002):
    x, y = X + dx, Y + dy
    return {"type": "Polygon", "coordinates": [[[x, y], [x + size, y], [x + size, y + size], [x, y + size], [x, y]]]}


def line(dx=0.0, dy=0.0, length=0.0005):
    return {"type": "LineString", "coordinates": [[X + dx, Y + dy], [X + dx + length, Y + dy]]}


def point(dx=0.0, dy=0.0):
    return {"type": "Point", "coordinates": [X + dx, Y + dy]}


SAMPLES = {
    "parcels": (square(), {"parcel_number": "206-00001-0000", "owner_name": "Ann Kulig",
                           "mailing_street": "412 N Dettloff Dr", "mailing_city": "Arcadia",
                           "mailing_state": "WI", "mailing_zip": "54612-1123", "site_address": "412 N Dettloff Dr"}),
    "mains": (line(), {"facility_id": "SM-1", "material": "PVC", "diameter_in": 8, "segment_length_ft": 13,
                       "kind": "gravity", "install_year": 2011}),
    "manholes": (point(), {"facility_id": "MH-1", "kind": "manhole", "rim_elev_ft": 720.5}),
    "laterals": (line(dy=0.0001, length=0.0001), {"material": "PVC", "sdr": 26, "diameter_in": 4,
                                                  "installed_on": "2015-06-01", "backflow_valve": True}),
    "taps": (point(dx=0.0001), {"method": "wye", "fitting_material": "PVC", "clock_position": 12.0,
                                "installed_on": "2015-06-01", "permit_number": "TP-2015-001"}),
    "tracer-wires": (line(dy=0.0001, length=0.0001), {"gauge_awg": 14, "in_conduit": True,
                                                      "reaches_surface_at_wall": True}),
    "streets": (line(dy=0.0002), {"name": "W Jackson St", "left_from": 101, "left_to": 199, "right_from": 100,
                                  "right_to": 198}),
    "service-areas": (square(size=0.01), {"name": "Arcadia sewer service area"}),
    "findings": (point(dx=0.0001, dy=0.0001), {"source": "sump_pump", "connected_to_sanitary": "yes",
                                               "observed_on": "2026-09-24",
                                               "method": "dye"}),
}

# A property to change in a PATCH, per layer, with its new value.
CHANGES = {
    "parcels": ("owner_name", "Ben Kulig"),
    "mains": ("diameter_in", 10.0),
    "manholes": ("rim_elev_ft", 721.0),
    "laterals": ("backflow_valve", False),
    "taps": ("clock_position", 11.5),
    "tracer-wires": ("gauge_awg", 12),
    "streets": ("name", "E Jackson St"),
    "service-areas": ("name", "Sewer district 1"),
    "findings": ("connected_to_sanitary", "no"),
}


def feature(layer: str, **props) -> dict:
    geometry, base = SAMPLES[layer]
    return {"type": "Feature", "geometry": geometry, "properties": {**base, **props}}


def row_counts(model) -> tuple[int, int]:
    """(rows of ``model``, audit rows): proof that nothing was written."""
    return (
        db.session.scalar(select(func.count()).select_from(model)),
        db.session.scalar(select(func.count()).select_from(AuditEvent)),
    )


def add_manholes(client, auth, n: int) -> list[int]:
    ids = []
    for i in range(n):
        body = feature("manholes", facility_id=f"MH-P{len(ids)}-{i}-{id(ids) % 997}")
        body["geometry"] = point(dx=(i % 10) * 0.0003, dy=(i // 10) * 0.0003)
        r = client.post("/api/v1/manholes", json=body, headers=auth["superintendent"])
        assert r.status_code == 201, r.get_json()
        ids.append(r.get_json()["id"])
    return ids


def delete_manhole(client, auth, fid: int) -> None:
    etag = client.get(f"/api/v1/manholes/{fid}", headers=auth["superintendent"]).headers["ETag"]
    r = client.delete(f"/api/v1/manholes/{fid}", headers={**auth["superintendent"], "If-Match": etag})
    assert r.status_code == 204


def read_page(client, auth, url: str) -> tuple[list[int], str | None, dict]:
    r = client.get(url, headers=auth["inspector"])
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    nxt = [link["href"] for link in body["links"] if link["rel"] == "next"]
    return [f["id"] for f in body["features"]], (nxt[0].replace("http://localhost", "") if nxt else None), body
