"""The sync protocol is in the OpenAPI document, tus routes included."""

from __future__ import annotations

import pytest

PATHS = ["/api/v1/sync/push", "/api/v1/sync/pull", "/api/v1/sync/conflicts",
         "/api/v1/sync/conflicts/{conflict_id}/resolve", "/api/v1/inspections", "/api/v1/inspections/{uuid}",
         "/api/v1/templates", "/api/v1/assignments", "/api/v1/photos/{sha256}", "/api/v1/uploads",
         "/api/v1/uploads/{upload_id}"]


@pytest.mark.parametrize("path", PATHS)
def test_sync_path_is_documented(client, auth, path):
    spec = client.get("/api/v1/openapi.json", headers=auth["inspector"]).get_json()
    assert path in spec["paths"]
