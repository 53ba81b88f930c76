"""The header's nav is built from the pages' declarations (server/core/access/nav.py): a role
sees the pages it may open, in order, as escaped text, and none that would refuse it."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from flask import render_template_string

from server import create_app
from server.core.access import ROLES, SIGNED_IN, NavLink, access, policy
from server.core.access.nav import Link, nav_pages
from tests.support.databases import PASSWORD

NAV_LINK = re.compile(r'<a href="([^"]+)">([^<]+)</a>')


def _nav(client, role: str) -> list[tuple[str, str]]:
    """(href, label) of the nav a logged-in ``role`` sees on the home page."""
    client.post("/login", data={"username": f"{role}1", "password": PASSWORD})
    page = client.get("/").get_data(as_text=True)
    header = page.split('<header class="bar">', 1)[1].split("</header>", 1)[0]
    return NAV_LINK.findall(header)


@pytest.mark.parametrize("role", ROLES)
def test_the_nav_shows_a_role_only_pages_it_may_open(app, client, role):
    urls = app.url_map.bind("localhost")
    for href, label in _nav(client, role):
        endpoint, _ = urls.match(href, method="GET")
        assert policy.access_for(app, endpoint, "GET").allows(role), label
        assert client.get(href).status_code == 200, label


@pytest.mark.parametrize(("role", "labels"), [
    ("inspector", ["Map", "Dashboard", "API"]),
    ("clerk", ["Map", "Dashboard", "Notices", "Permits", "Plumbers", "API"]),
    ("superintendent", ["Map", "Dashboard", "Notices", "Permits", "Rules", "Review", "Owner replies", "CCTV", "Assign",
                        "API"]),
    ("admin", ["Map", "Dashboard", "Notices", "Permits", "Plumbers", "Rules", "Review", "Owner replies", "CCTV",
               "Assign", "Users", "API"]),
])
def test_the_nav_lists_every_page_the_role_may_open_in_order(client, role, labels):
    assert [label for _, label in _nav(client, role)] == labels


def test_nobody_logged_in_sees_no_nav_but_the_login(client):
    page = client.get("/").get_data(as_text=True)
    header = page.split('<header class="bar">', 1)[1].split("</header>", 1)[0]
    assert NAV_LINK.findall(header) == [("/login", "Log in")]


def test_a_nav_label_is_rendered_as_text(app):
    with app.test_request_context("/"):
        html = render_template_string('{% extends "base.html" %}',
                                      user=SimpleNamespace(display_name="Pat", role="clerk"),
                                      nav_links=[Link("<b>Map</b>", "/map?a=1&b=2")])
    assert "&lt;b&gt;Map&lt;/b&gt;" in html and "<b>Map</b>" not in html
    assert 'href="/map?a=1&amp;b=2"' in html


def test_a_new_page_joins_the_nav_where_it_is_declared():
    app = create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://", "SECRET_KEY": "test", "TESTING": True})
    app.add_url_rule("/_probe", "probe", access(SIGNED_IN, nav=NavLink("Probe", 15))(lambda: ""))
    labels = [link.label for link, _ in nav_pages(app)]
    assert labels[:3] == ["Map", "Probe", "Dashboard"]


def test_a_nav_page_must_be_reachable_by_a_plain_link():
    app = create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://", "SECRET_KEY": "test", "TESTING": True})
    app.add_url_rule("/_probe/<int:n>", "probe", access(SIGNED_IN, nav=NavLink("Probe", 15))(lambda n: ""))
    with pytest.raises(LookupError, match="probe"):
        nav_pages(app)
