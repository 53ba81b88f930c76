"""Who may call each route: one table, enforced before every request, denying by default.

:data:`POLICY` maps every endpoint (and, where they differ, each HTTP method) to an
:class:`Access`: the roles that may call it, ``anonymous`` for routes open to anyone, and,
for inspectors, what "own work only" means there (the service enforces that part, since
it depends on the row: whose inspection, whose finding, which assigned parcels).

:func:`enforce` runs before every request: it looks the request's endpoint up, answers
a missing login the way the route's family does (401 for the API, OGC API and tiles; the
login form for pages) and a role outside the entry with 403. An endpoint missing from the
table is refused (``tests/core/access/test_policy.py`` also fails for one). ``docs/security.md`` is the
table as a matrix, written by ``flask --app server security matrix``.

Feature layers take their write roles from :data:`server.network.layers.LAYERS` and notice events
theirs from the notice workflow's transition table, so each rule is declared once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from flask import Flask, g, redirect, render_template, request, session, url_for

from server.core.accounts import authenticate as kernel_auth
from server.core.accounts.authenticate import logged_in_user
from server.core.accounts.models import ROLES
from server.core.web.errors import ApiError
from server.network.layers import LAYERS
from server.network.ogc.views import wants_html
from server.notices.workflow import EVENTS, SYSTEM, TRANSITIONS

ANONYMOUS = "anonymous"
#: The matrix's columns, least to most trusted.
CALLERS = (ANONYMOUS, *ROLES)


@dataclass(frozen=True)
class Access:
    """Who may call one route.

    Attributes:
        roles: The roles allowed; ``ANONYMOUS`` among them makes the route public.
        own: For ``own_roles`` (inspectors unless said), the part of the data the route
            lets them touch, when it is less than everything (enforced by the service
            named in the text).
        own_roles: The roles ``own`` limits.
    """

    roles: frozenset[str]
    own: str | None = None
    own_roles: frozenset[str] = frozenset({"inspector"})

    @property
    def public(self) -> bool:
        return ANONYMOUS in self.roles

    def allows(self, caller: str) -> bool:
        return caller in self.roles


def allow(*roles: str, own: str | None = None, own_roles: tuple[str, ...] = ("inspector",)) -> Access:
    return Access(frozenset(roles), own, frozenset(own_roles))


PUBLIC = allow(*CALLERS)
SIGNED_IN = allow(*ROLES)
SUPERVISORS = allow("superintendent", "admin")
DESK = allow("clerk", "superintendent", "admin")
ADMIN = allow("admin")
FIELD = allow("inspector", "superintendent", "admin")

#: Blueprints whose routes are web pages: without a login they send people to the form.
PAGE_BLUEPRINTS = frozenset({"web", "survey_pages", "desk", "certify", "field", "rules_pages", "review",
                             "assign", "user_pages"})
# Read by GIS clients (QGIS, GDAL) that hold a password: their 401 offers HTTP Basic.
GIS_BLUEPRINTS = frozenset({"ogc", "tiles"})
#: Why a page's 403 says no, by blueprint.
PAGE_PURPOSE = {
    "desk": "The notice desk is for the clerk, the superintendent and the administrator.",
    "certify": "The survey certification is the superintendent's.",
    "rules_pages": "Running the rules, the violations and drafting notices are the superintendent's.",
    "review": "Reviewing inspections and the sync queue is the superintendent's.",
    "assign": "Assigning work to inspectors is the superintendent's (and the administrator's).",
    "user_pages": "Users are managed by the administrator.",
}


def _layer_routes() -> dict[str, dict[str, Access]]:
    """Every feature layer: read by anyone signed in, written by its ``write_roles``."""
    out = {}
    for layer in LAYERS.values():
        writers = allow(*layer.write_roles)
        item_writers = writers
        if layer.name == "findings":
            item_writers = allow(*layer.write_roles, own_roles=("inspector", "admin"),
                                 own="findings they recorded; the superintendent changes any "
                                     "(server/network/findings.py)")
        out[f"{layer.name}.Collection"] = {"GET": SIGNED_IN, "POST": writers}
        out[f"{layer.name}.Item"] = {"GET": SIGNED_IN, "PATCH": item_writers, "DELETE": item_writers}
    return out


def _event_routes() -> dict[str, Access]:
    """``POST /api/v1/notices/<id>/<event>``: whoever the transition table lets send it
    from some state (the table still decides per state: 409 or 403)."""
    out = {}
    for event in EVENTS:
        roles = set().union(*(t.roles for (_, e), t in TRANSITIONS.items() if e == event)) - {SYSTEM}
        roles &= set(ROLES)
        out[f"notices.notice_{event}"] = allow(*roles)
    return out


def _event_roles(event: str) -> Access:
    """Whoever the transition table lets make ``event`` from some state."""
    roles = set().union(*(t.roles for (_, e), t in TRANSITIONS.items() if e == event))
    return allow(*(roles & set(ROLES)))


_MAIL = _event_roles("mail")

#: endpoint -> Access for every method, or {method: Access}.
POLICY: dict[str, Access | dict[str, Access]] = {
    # --- web pages
    "static": PUBLIC,
    "web.static": PUBLIC,
    "web.swagger_static": PUBLIC,
    "web.home": PUBLIC,
    "web.login": PUBLIC,
    "web.logout": PUBLIC,
    "web.api_docs": SIGNED_IN,
    "web.account_password": SIGNED_IN,  # one's own password
    "survey_pages.survey_map": SIGNED_IN,
    "survey_pages.dashboard": SIGNED_IN,
    "certify.certify": SUPERVISORS,
    "desk.desk": DESK,
    "desk.mailing": DESK,
    "desk.mail": DESK,
    "desk.notice_event": DESK,
    "desk.decision_letter": DESK,
    "desk.survey_receipt": DESK,
    # The superintendent's pages (server/office/pages/rules.py, server/office/pages/review.py).
    "rules_pages.violations": SUPERVISORS,
    "rules_pages.run": SUPERVISORS,
    "rules_pages.violation": SUPERVISORS,
    "rules_pages.waive": allow("superintendent"),
    "rules_pages.drafting": SUPERVISORS,
    "rules_pages.draft": SUPERVISORS,
    "rules_pages.preview": SUPERVISORS,
    "rules_pages.preview_pdf": SUPERVISORS,
    "review.review_page": SUPERVISORS,
    "review.decide": SUPERVISORS,
    # Assign work (server/office/pages/assign.py) and Users (server/core/accounts/pages.py)
    "assign.assign_page": SUPERVISORS,
    "assign.assign": SUPERVISORS,
    "assign.reassign": SUPERVISORS,
    "assign.unassign": SUPERVISORS,
    "user_pages.users_page": ADMIN,
    "user_pages.create": ADMIN,
    "user_pages.set_active": ADMIN,
    "user_pages.password_page": ADMIN,
    "user_pages.reset_password": ADMIN,
    # The field app's shell is static files; its data comes from the API with a token.
    "field.root_redirect": PUBLIC,
    "field.index": PUBLIC,
    "field.static_file": PUBLIC,
    "field.config": PUBLIC,
    "field.service_worker": PUBLIC,
    # --- API: logging in, the document, users
    "health.health": PUBLIC,
    "auth.Token": PUBLIC,
    "auth.me": SIGNED_IN,
    "auth.tokens": SIGNED_IN,
    "auth.revoke": SIGNED_IN,
    "auth.change_password": SIGNED_IN,  # one's own, with the old one
    "api-docs.openapi_json": SIGNED_IN,
    "users.list_users": ADMIN,
    "users.create_user": ADMIN,
    "users.update_user": ADMIN,
    "users.reset_password": ADMIN,
    # --- API: the network, the survey, exports, rules
    "layers.layers": SIGNED_IN,
    **_layer_routes(),
    "exports.export": SIGNED_IN,
    "survey.search": SIGNED_IN,
    "survey.survey_parcels": SIGNED_IN,
    "survey.survey_parcel": allow(*ROLES, own="the parcel's inspections: their own (server/office/survey.py)"),
    "survey.summary": SIGNED_IN,
    "rules.list_rules": SIGNED_IN,
    "rules.run": SUPERVISORS,
    "rules.list_violations": SIGNED_IN,
    "rules.get_violation": SIGNED_IN,
    "rules.waive": allow("superintendent"),
    # --- API: field work
    "inspections.list_inspections": allow(*ROLES, own="their own inspections (server/field/inspections.py)"),
    "inspections.get_inspection": allow(*ROLES, own="their own inspections (server/field/inspections.py)"),
    "inspections.list_templates": SIGNED_IN,
    "inspections.get_template": SIGNED_IN,
    "inspections.list_assignments": allow(*ROLES, own="their own assignments (server/field/assignments.py)"),
    "inspections.create_assignment": SUPERVISORS,
    "sync.push": allow("inspector", "superintendent", "admin",
                       own="corrections of their own inspections; edits to network features outside "
                           "their assigned parcels are held as proposals (server/field/sync.py)"),
    "sync.pull": allow(*ROLES, own="the area of their own assignments (server/field/sync.py)"),
    "sync.conflicts": SUPERVISORS,
    "sync.resolve": SUPERVISORS,
    # --- API: photos. An upload is its uploader's (server/field/uploads/tus.py).
    "tus_uploads.collection": allow(*ROLES, own="their own uploads (server/field/uploads/tus.py)"),
    "tus_uploads.upload": allow(*ROLES, own="their own uploads (server/field/uploads/tus.py)"),
    "photos.original": SIGNED_IN,
    "photos.display": SIGNED_IN,
    "photos.thumbnail": SIGNED_IN,
    "photos.info": SIGNED_IN,
    # --- API: notices and certified mail
    "notices.calendar_deadline": SIGNED_IN,
    "notices.draft": SUPERVISORS,
    "notices.list_notices": SIGNED_IN,
    "notices.get_notice": SIGNED_IN,
    "notices.letter_pdf": SIGNED_IN,
    **_event_routes(),
    "notices.mail_one": _MAIL,
    "notices.mail_batch": _MAIL,
    "notices.get_batch": SIGNED_IN,
    "notices.batch_letters": SIGNED_IN,
    "notices.batch_mailing_book": SIGNED_IN,
    "notices.batch_return_receipts": SIGNED_IN,
    "notices.batch_labels": SIGNED_IN,
    "notices.decision_letter_pdf": SIGNED_IN,
    "notices.mail_decision": _event_roles("mail_decision"),
    # --- OGC API - Features and vector tiles: every layer, read-only
    "ogc.landing": SIGNED_IN,
    "ogc.api": SIGNED_IN,
    "ogc.conformance": SIGNED_IN,
    "ogc.collections": SIGNED_IN,
    "ogc.collection": SIGNED_IN,
    "ogc.items": SIGNED_IN,
    "ogc.item": SIGNED_IN,
    "tiles.tile": SIGNED_IN,
}


def access_for(endpoint: str, method: str) -> Access | None:
    """The declaration for ``method`` on ``endpoint``; None when there is none.

    ``HEAD`` is answered as ``GET`` unless declared on its own.
    """
    entry = POLICY.get(endpoint)
    if entry is None:
        # A layer registered after this module was imported: the registry is its declaration.
        entry = _layer_routes().get(endpoint)
    if entry is None or isinstance(entry, Access):
        return entry
    return entry.get(method) or (entry.get("GET") if method == "HEAD" else None)


def route_methods(rule) -> list[str]:
    """The methods a URL rule serves that the policy must declare (``OPTIONS`` carries no
    data; ``HEAD`` follows ``GET`` where both exist)."""
    methods = set(rule.methods) - {"OPTIONS"}
    if "GET" in methods:
        methods.discard("HEAD")
    return sorted(methods)


def routes(app: Flask) -> Iterator[tuple[str, str, str]]:
    """(rule, method, endpoint) for every route of ``app``, in path order."""
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: (r.rule, r.endpoint)):
        for method in route_methods(rule):
            yield rule.rule, method, rule.endpoint


def undeclared(app: Flask) -> list[str]:
    """Routes of ``app`` that the policy says nothing about."""
    return [f"{method} {rule} ({endpoint})" for rule, method, endpoint in routes(app)
            if access_for(endpoint, method) is None]


# ------------------------------------------------------------------ enforcement


def login_kind(endpoint: str) -> str:
    """How a route answers a missing login: ``page`` (the login form), ``ogc`` or ``api``."""
    blueprint = endpoint.rsplit(".", 1)[0] if "." in endpoint else ""
    if blueprint in PAGE_BLUEPRINTS or endpoint == "static":
        return "page"
    return "gis" if blueprint in GIS_BLUEPRINTS else "api"


def enforce():
    """before_request: refuse the request unless the policy lets its caller in."""
    endpoint = request.endpoint
    if request.method == "OPTIONS":
        return None  # describes a route; no data
    if endpoint is None:
        return None  # no such route (404) or method (405), whoever asks (kernel/auth.py agrees)
    access = access_for(endpoint, request.method)
    if access is None:
        raise ApiError(403, "forbidden", "this route has no declared access, so nobody may call it")
    if access.public:
        return None
    kind = login_kind(endpoint)
    if kind == "page":
        user = logged_in_user()
        if user is None:
            return redirect(url_for("web.login", next=request.path))
        g.user = user
    elif kind == "gis":
        refused = _gis_login()
        if refused is not None:
            return refused
    else:
        kernel_auth.authenticate()
    role = g.user.role
    if access.allows(role):
        return None
    if kind == "page":
        purpose = PAGE_PURPOSE.get(request.blueprint or "", "This page is not for your role.")
        return render_template("forbidden.html", what=purpose), 403
    raise ApiError(403, "forbidden", f"this needs the role {' or '.join(sorted(access.roles))}",
                   {"your_role": role, "allowed_roles": sorted(access.roles)})


def _gis_login():
    """The API's login rules, for the OGC API and tiles. A browser without a session is sent
    to the login form; one refused a login gets an HTML page saying how to log in; any other
    client refused a login is offered HTTP Basic (GIS clients that hold a password), the
    JSON error saying where the instructions are (``docs/qgis.md``)."""
    html = request.blueprint == "ogc" and wants_html()
    if html and not request.headers.get("Authorization") and not session.get("user_id"):
        return redirect(url_for("web.login", next=request.full_path))
    try:
        kernel_auth.authenticate()
    except ApiError as exc:
        if exc.status != 401:
            raise
        kernel_auth.offer_basic(exc)
        if html:
            return _html_unauthorized(exc)
        raise
    return None


def _html_unauthorized(exc: ApiError):
    """The 401 as a page, for a browser at /ogc whose login was refused (a session logged
    out elsewhere, a wrong password). Only a request that tried Basic is challenged with
    it again: a stale session cookie should not raise the browser's own password box."""
    tried_basic = request.headers.get("Authorization", "").startswith("Basic ")
    challenges = exc.headers["WWW-Authenticate"] if tried_basic else [exc.headers["WWW-Authenticate"][-1]]
    body = render_template("gis_unauthorized.html", message=exc.message, docs=kernel_auth.GIS_LOGIN_DOCS,
                           login=url_for("web.login", next=request.full_path))
    return body, 401, {"WWW-Authenticate": challenges, "Content-Type": "text/html; charset=utf-8"}


def init_app(app: Flask) -> None:
    """Enforce the policy before every request (the app's first before_request)."""
    app.before_request_funcs.setdefault(None, []).insert(0, enforce)


# ------------------------------------------------------------------ the matrix


def _cell(access: Access, caller: str) -> str:
    if not access.allows(caller):
        return "—"
    return "own" if access.own and caller in access.own_roles else "yes"


def matrix(app: Flask) -> str:
    """``docs/security.md``'s route table: every route × caller, from :data:`POLICY`."""
    head = ["| method | route | " + " | ".join(CALLERS) + " |",
            "|---|---|" + "---|" * len(CALLERS)]
    rows: list[str] = []
    notes: dict[str, int] = {}
    for rule, method, endpoint in routes(app):
        access = access_for(endpoint, method)
        if access is None:
            raise LookupError(f"{method} {rule} ({endpoint}) has no declared access")
        mark = ""
        if access.own:
            n = notes.setdefault(access.own, len(notes) + 1)
            mark = f" [{n}]"
        rows.append(f"| {method} | `{rule}`{mark} | " + " | ".join(_cell(access, c) for c in CALLERS) + " |")
    own = [f"{n}. {text}" for text, n in notes.items()]
    return "\n".join([*head, *rows, "", "*own* — own work only:", "", *own]) + "\n"
