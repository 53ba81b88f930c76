"""The 401 of the GIS endpoints (OGC API, tiles) says how to log in, in a way QGIS acts on:
a Basic challenge on a header line of its own (Qt reads only a challenge that starts the
line), the one JSON error shape pointing at docs/qgis.md, and a page for a browser. The
JSON API's 401 stays Bearer only, so no browser page of Lateral raises a password box."""

from __future__ import annotations

import base64

import pytest
from sqlalchemy import select

from server.core.accounts.models import User
from server.core.extensions import db
from tests.support.databases import PASSWORD

TILE = "/tiles/parcels/15/8050/11792.mvt"
GIS_PATHS = ["/ogc/", "/ogc/collections", "/ogc/collections/parcels/items", TILE]
HTML = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def _basic(username: str, password: str) -> dict:
    return {"Authorization": "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()}


@pytest.mark.parametrize("path", GIS_PATHS)
def test_an_anonymous_gis_client_is_challenged_with_basic_first(client, path):
    r = client.get(path, headers={"Accept": "application/json"})
    assert r.status_code == 401
    challenges = r.headers.getlist("WWW-Authenticate")
    assert challenges[0] == 'Basic realm="lateral", charset="UTF-8"'
    assert challenges[1:] == ['Bearer realm="lateral"']
    error = r.get_json()["error"]
    assert error["code"] == "unauthorized"
    assert "docs/qgis.md" in error["message"] and "Basic" in error["message"]
    assert error["details"]["docs"] == "docs/qgis.md"


def test_a_wrong_password_is_refused_with_the_same_challenge(client, app):
    r = client.get("/ogc/collections", headers=_basic("clerk1", "not the password"))
    assert r.status_code == 401
    assert r.headers.getlist("WWW-Authenticate")[0].startswith("Basic ")
    assert r.get_json()["error"]["details"]["docs"] == "docs/qgis.md"


@pytest.mark.parametrize("path", ["/ogc/collections", TILE])
def test_basic_credentials_read_the_gis_endpoints(client, app, path):
    assert client.get(path, headers=_basic("clerk1", PASSWORD)).status_code in (200, 204)


def test_the_json_api_keeps_a_bearer_only_challenge(client):
    """The map's and the field app's fetches see no Basic challenge, so no browser password box."""
    r = client.get("/api/v1/survey/summary")
    assert r.status_code == 401
    assert r.headers.getlist("WWW-Authenticate") == ['Bearer realm="lateral"']


def test_a_browser_without_a_session_is_still_sent_to_log_in(client):
    r = client.get("/ogc/collections", headers=HTML)
    assert r.status_code == 302 and "/login?next=" in r.headers["Location"]
    assert client.get("/map").status_code == 302  # the staff pages too


def test_a_browser_whose_password_is_refused_gets_a_page_saying_how_to_log_in(client, app):
    r = client.get("/ogc/collections", headers={**HTML, **_basic("clerk1", "wrong")})
    assert r.status_code == 401 and r.mimetype == "text/html"
    page = r.get_data(as_text=True)
    assert "docs/qgis.md" in page and "GDAL_HTTP_AUTH=BASIC" in page and "/login?next=" in page
    assert r.headers.getlist("WWW-Authenticate")[0].startswith("Basic ")  # it tried Basic: ask again


def test_a_browser_logged_out_elsewhere_gets_the_page_without_a_password_box(client, app):
    user = db.session.scalar(select(User).where(User.username == "clerk1"))
    with client.session_transaction() as session:
        session.update(user_id=user.id, session_version=user.session_version + 1)  # logged out since
    r = client.get("/ogc/collections", headers=HTML)
    assert r.status_code == 401 and r.mimetype == "text/html"
    assert "Log in to read the OGC API" in r.get_data(as_text=True)
    assert r.headers.getlist("WWW-Authenticate") == ['Bearer realm="lateral"']
