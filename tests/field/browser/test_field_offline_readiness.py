"""A tablet whose browser will not install the service worker says so, and tells the
superintendent (issue 31, item 6).

With a certificate the tablet does not trust, the worker's script never loads: here the
server answers ``/field/sw.js`` with a 500, which the browser refuses the same way. Once
the app's retries are spent (the page's clock is run forward through them) the app shows
a lasting "This tablet cannot work offline: …", and the next sync reports it on the
tablet's token.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from server.core.accounts.models import ApiToken
from server.core.extensions import db
from tests.support.field_app import PASSWORD, expect_pill

pytestmark = pytest.mark.browser


class RefuseWorker:
    """WSGI middleware: the service worker's script is never served."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") == "/field/sw.js":
            start_response("500 Internal Server Error", [("Content-Type", "text/plain")])
            return [b"no worker"]
        return self.app(environ, start_response)


def test_a_tablet_that_cannot_install_the_worker_says_so_and_reports_it(field_city, tablet):
    context, page, _errors = tablet
    field_city.app.wsgi_app = RefuseWorker(field_city.app.wsgi_app)
    page.clock.install()
    page.goto(f"{field_city.url}/field/")
    page.wait_for_selector("#username")
    page.fill("#username", "inspector")
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector(".parcel-card")
    assert page.locator("#offline-note").is_hidden()  # still trying

    # 2 + 4 + … + 64 s of retries, each refused: the page's clock runs each delay out once
    # the refused register() has scheduled the next (a real fetch, so real time between).
    for _step in range(40):
        if page.locator("#offline-note").is_visible():
            break
        page.clock.run_for(70_000)
        page.wait_for_timeout(500)
    page.wait_for_selector("#offline-note:not([hidden])", timeout=5000)
    note = page.locator("#offline-note").text_content()
    page.evaluate("window.lateralField.syncNow()")
    expect_pill(page, "All sent")

    assert note.startswith("This tablet cannot work offline: ")
    assert "trusts the server's certificate" in note
    with field_city.app.app_context():
        reported = db.session.scalars(select(ApiToken).where(ApiToken.offline_reported_at.is_not(None))).all()
    assert [t.offline_ready for t in reported] == [False]
    assert reported[0].offline_reason
