"""The header's navigation: the pages that say ``nav=NavLink(...)`` and that the role may open.

Built from the routes' declarations, so a link is never shown to a role the page would
refuse, and a new page joins the nav where it is declared. ``base.html`` renders the
labels as escaped text.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import url_for
from flask.sansio.app import App

from server.core.access.declare import NavLink, nav_on
from server.core.access.policy import access_for


@dataclass(frozen=True)
class Link:
    label: str
    href: str


def nav_pages(app: App) -> list[tuple[NavLink, str]]:
    """(link, endpoint) of every page in the nav, in its order.

    Raises:
        LookupError: For a nav page that is not a plain ``GET`` of a URL without
            parameters (a link could not reach it).
    """
    found = []
    for endpoint, view in app.view_functions.items():
        link = nav_on(view)
        if link is None:
            continue
        if not any("GET" in (rule.methods or ()) and not rule.arguments for rule in app.url_map.iter_rules(endpoint)):
            raise LookupError(f"{endpoint} is in the nav but no GET of it takes no parameters")
        found.append((link, endpoint))
    return sorted(found, key=lambda entry: (entry[0].order, entry[0].label))


def may_open(app: App, role: str, endpoint: str) -> bool:
    """Whether ``role`` may open the page at ``endpoint`` (a ``GET``): for a link a page
    shows only to those it would let in."""
    declared = access_for(app, endpoint, "GET")
    return declared is not None and declared.allows(role)


def nav_links(app: App, role: str) -> list[Link]:
    """The nav for ``role``: the pages it may open, with their labels (needs a request)."""
    return [Link(link.label, url_for(endpoint)) for link, endpoint in nav_pages(app)
            if may_open(app, role, endpoint)]
