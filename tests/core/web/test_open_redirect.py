"""The login form sends the user back only to a path on this site (issue 15, row 6)."""

from __future__ import annotations

import pytest

from server.core.web.next_url import local_path
from tests.support.databases import PASSWORD

FOREIGN = [
    "/%09/evil.example/phish",  # the reported one: the browser drops the tab
    "/%0a/evil.example", "/%0d/evil.example",
    "//evil.example", "///evil.example", "/\\evil.example", "\\\\evil.example", "/%5cevil.example",
    "https://evil.example", "http:evil.example", "javascript:alert(1)", "evil.example",
    "%2F%2Fevil.example", "/ /evil.example", "/%E2%80%8B/evil.example", "",
]


def _login(client, query: str):
    return client.post(f"/login?next={query}", data={"username": "clerk1", "password": PASSWORD})


@pytest.mark.parametrize("target", FOREIGN)
def test_a_foreign_next_lands_on_the_home_page(client, target):
    r = _login(client, target)

    assert r.status_code == 302
    assert r.headers["Location"] == "/"


def test_a_next_with_a_nul_is_refused_before_any_redirect(client):
    """NUL characters are refused in every input (issue 15, item 10): no login, no Location."""
    r = _login(client, "/%00/evil.example")

    assert r.status_code == 422 and "Location" not in r.headers


@pytest.mark.parametrize("target", ["/desk/", "/survey/map?layer=parcels&x=1", "/api/v1/docs#top"])
def test_a_local_path_is_followed(client, target):
    r = _login(client, target.replace("?", "%3F").replace("&", "%26").replace("#", "%23"))

    assert r.headers["Location"] == target


@pytest.mark.parametrize("target", ["/\t/evil.example", "/\\evil.example", "/\u2028/x", "//x", "/x\x7f"])
def test_local_path_refuses_what_a_browser_would_read_as_another_host(target):
    assert local_path(target) is None
