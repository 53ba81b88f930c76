"""Several tablets (or one retrying) push the same record at once: it is stored once."""

from __future__ import annotations

import threading
import uuid as uuid_module

import pytest
import requests
from sqlalchemy import func, select

from tests.support.databases import ENGINES, make_migrated_app
from tests.support.live_server import LiveServer
from tests.support.sync import survey

SENDERS = 6


@pytest.mark.parametrize("kind", ENGINES)
def test_simultaneous_pushes_of_one_uuid_store_one_inspection(kind, tmp_path):
    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db
    from server.field.checklist_templates import load_templates
    from server.field.models import Inspection, PushRecord
    from server.network import features
    from server.network.layers import LAYERS
    from tests.support.features import SAMPLES

    app, drop = make_migrated_app(kind, tmp_path, TUS_STAGING_DIR=str(tmp_path / "tus"),
                                  BLOB_STORE={"backend": "local", "root": str(tmp_path / "blobs")})
    try:
        with app.app_context():
            token = issue_token(create_user("field1", "inspector", "correct horse battery"), "tablet")[0]
            load_templates()
            geometry, props = SAMPLES["parcels"]
            _, parcel_id, _ = features.create_feature(LAYERS["parcels"], geometry, props, None)
            db.session.commit()
        body = {"records": [{"uuid": str(uuid_module.uuid4()), "kind": "inspection",
                             "data": survey(parcel_id, access="refused")}]}
        results, barrier = [], threading.Barrier(SENDERS)

        def send(url):
            barrier.wait()
            response = requests.post(f"{url}/api/v1/sync/push", json=body, timeout=60,
                                     headers={"Authorization": f"Bearer {token}"})
            results.append(response.json()["results"][0])

        with LiveServer(app) as server:
            threads = [threading.Thread(target=send, args=(server.url,)) for _ in range(SENDERS)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=90)
        assert sorted(r["code"] for r in results) == ["created"] + ["duplicate"] * (SENDERS - 1)
        assert len({r["server_id"] for r in results}) == 1
        with app.app_context():
            assert db.session.scalar(select(func.count()).select_from(Inspection)) == 1
            assert db.session.scalar(select(func.count()).select_from(PushRecord)) == 1
            db.session.remove()
            db.engine.dispose()
    finally:
        if drop:
            drop()
