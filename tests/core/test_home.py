"""The home page offers each role what it comes to do."""

from __future__ import annotations

import pytest

from tests.support.databases import PASSWORD

EXPECTED = {
    "inspector": {"/field/", "/map"}, "clerk": {"/desk/", "/map", "/dashboard"},
    "superintendent": {"/field/", "/desk/", "/survey/certify", "/dashboard"},
}


@pytest.mark.parametrize("role", list(EXPECTED))
def test_home_links_what_the_role_uses(client, role):
    client.post("/login", data={"username": f"{role}1", "password": PASSWORD})
    page = client.get("/").get_data(as_text=True)
    for href in EXPECTED[role]:
        assert f'href="{href}"' in page


def test_inspector_is_not_offered_the_desk(client):
    client.post("/login", data={"username": "inspector1", "password": PASSWORD})
    assert 'href="/desk/"' not in client.get("/").get_data(as_text=True)


def test_anonymous_home_offers_the_login(client):
    page = client.get("/").get_data(as_text=True)
    assert 'href="/login"' in page and "Notice desk" not in page
