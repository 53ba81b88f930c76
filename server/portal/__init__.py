"""The public side: a notice's owner answers it with the code on the letter, and licensed
plumbers apply for permits, request inspections and submit their CCTV, for staff to review.

``codes`` (pure: making and reading lookup codes), ``models``, ``lookup`` (a code and a
parcel number open one notice; the code holder of a session), ``letters`` (the code, the
address and a QR code on each letter, through :mod:`server.notices.events`), ``api`` and
``pages``; for plumbers ``plumbers`` (accounts and licenses), ``plumber_permits`` (their
applications, permits and inspection requests), ``plumber_notify`` (their emails) and
``plumber_pages``; ``uploads`` checks and keeps the files both send. ``docs/portal.md``
explains it to the city's staff.
"""

from server.core.access import CODE_HOLDER
from server.core.gate import Caller, add_caller


def init_app(app, api) -> None:
    """Register the portal's routes and pages; tell the gate who a code holder is."""
    from server.portal import api as portal_api
    from server.portal import cctv_pages, i18n, lacp, letters, lookup, notify, pages, plumber_notify, plumber_pages

    i18n.init_app(app)
    lacp.translate_with(i18n._)
    api.register_blueprint(portal_api.blp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(plumber_pages.bp)
    cctv_pages.register(app)
    letters.connect(app)
    notify.connect(app)
    plumber_notify.connect(app)
    add_caller(app, Caller(CODE_HOLDER, lookup.holder, "portal_pages.start",
                           ("lookup_required", "enter the lookup code from the letter and the parcel number first")))
