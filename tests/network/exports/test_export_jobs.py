"""Exports as jobs of the queue (server/network/exports.py ``run_export_job``, issue #35):
the worker writes the file, its submitter fetches it, nobody else does."""

from __future__ import annotations

import json

from server.core.queue import service as jobs
from server.network import exports


def test_an_export_job_writes_the_layer_and_hands_out_its_file(client, auth, seeded_city):
    r = client.post("/api/v1/exports/manholes.geojson", headers=auth["inspector"])
    assert r.status_code == 202, r.get_json()
    job = r.get_json()
    assert job["state"] == "done" and job["result"]["filename"] == "manholes.geojson"
    got = client.get(f"/api/v1/exports/jobs/{job['id']}", headers=auth["inspector"])
    assert got.status_code == 200 and got.mimetype == "application/geo+json"
    sync = client.get("/api/v1/exports/manholes.geojson", headers=auth["inspector"])
    assert len(json.loads(got.data)["features"]) == len(json.loads(sync.data)["features"]) \
        == job["result"]["features"] > 0


def test_an_export_job_file_is_not_handed_to_another_user(client, auth, seeded_city):
    job = client.post("/api/v1/exports/manholes.csv", headers=auth["inspector"]).get_json()
    assert client.get(f"/api/v1/exports/jobs/{job['id']}", headers=auth["clerk"]).status_code == 404
    assert client.get(f"/api/v1/exports/jobs/{job['id']}", headers=auth["admin"]).status_code == 200


def test_a_bad_export_request_queues_nothing(client, auth, app):
    before = jobs.pending()
    assert client.post("/api/v1/exports/nothing.gpkg", headers=auth["inspector"]).status_code == 404
    assert client.post("/api/v1/exports/manholes.gpkg?bbox=1,2", headers=auth["inspector"]).status_code == 422
    assert jobs.pending() == before


def test_old_export_files_are_swept(app, tmp_path, monkeypatch):
    monkeypatch.setitem(app.config, "LATERAL_EXPORT_DIR", str(tmp_path))
    old = tmp_path / "abc"
    old.mkdir()
    (old / "parcels.gpkg").write_bytes(b"x")
    import os
    os.utime(old, (0, 0))
    exports._sweep(tmp_path)
    assert not old.exists()
    assert exports.export_file({"folder": "../etc", "filename": "passwd"}) is None
