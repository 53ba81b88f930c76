"""The field app's service worker installs even when one of its fetches is lost.

The worker installs by fetching every file of the app (``cache.addAll``); when one of
those fetches fails, the browser drops the install and, left alone, tries again only when
the app is next opened, so a tablet that lost a packet on first use would have no app
offline all day. The app tries the install again after 2, 4, 8… seconds
(``registerWorker`` in ``offline_client/web/js/main.js``). Here the server answers the
worker's first fetch of the stylesheet with a 503, once; the worker must still take over.
"""

from __future__ import annotations

import threading

import pytest

from tests.support.field_app import log_in_and_pull

pytestmark = pytest.mark.browser


class LoseOnce:
    """WSGI middleware: the first fetch of ``path`` made by a service worker's cache
    (``Sec-Fetch-Dest: empty``; the page's own stylesheet load is ``style``) gets a 503."""

    def __init__(self, app, path: str):
        self.app, self.path, self.lost = app, path, []
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") == self.path and environ.get("HTTP_SEC_FETCH_DEST") == "empty":
            with self._lock:
                first = not self.lost
                if first:
                    self.lost.append(self.path)
            if first:
                start_response("503 Service Unavailable", [("Content-Type", "text/plain"), ("Retry-After", "1")])
                return [b"busy"]
        return self.app(environ, start_response)


def test_a_lost_fetch_while_installing_is_tried_again_and_the_app_works_offline(field_city, tablet):
    context, page, errors = tablet
    # Flask's __call__ reads wsgi_app on each request: the running server loses from now on.
    field_city.app.wsgi_app = LoseOnce(field_city.app.wsgi_app, "/field/app.css")
    log_in_and_pull(page, field_city)  # waits (up to 60 s) for the worker to take over
    assert field_city.app.wsgi_app.lost == ["/field/app.css"], "the worker's install never met the lost fetch"
    context.set_offline(True)
    try:
        page.reload()
        page.wait_for_selector(".parcel-card")
    finally:
        context.set_offline(False)
    assert errors == []


def test_a_page_the_worker_does_not_control_asks_it_to(field_city, tablet):
    """A reload that bypasses the worker (as Shift+Reload does; and a page that opened while
    the worker was taking over) starts uncontrolled; the app asks the active worker to claim it."""
    context, page, errors = tablet
    log_in_and_pull(page, field_city)
    cdp = context.new_cdp_session(page)
    cdp.send("Page.reload", {"ignoreCache": True})
    page.wait_for_selector(".parcel-card")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=20000)
    assert errors == []
