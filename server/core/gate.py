"""The gate: before every request, the route's declared access decides, denying by default.

:func:`enforce` finds the request's route's declaration (:mod:`server.core.access`),
answers a missing login the way the route's blueprint says (the login form for pages;
401 for the API, and for the OGC API and tiles 401 offering HTTP Basic) and a role the
declaration does not name with 403. A route that declares nothing is refused for
everyone. Callers who are not users (the portal's code holders) are told to the gate by
the domain that knows them (:func:`add_caller`); a login never stands in for one, nor
one for a login. It sits above the accounts, whose logins it checks, and the access
declarations, which the accounts' own routes make too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, g, redirect, render_template, request, session, url_for

from server.core.access import GIS, PAGE
from server.core.access.declare import declarations
from server.core.access.policy import access_for, login_kind, purpose
from server.core.accounts import authenticate as kernel_auth
from server.core.accounts import service as auth_service
from server.core.accounts.authenticate import logged_in_user
from server.core.errors import LateralError, status_of

_CALLERS = "lateral_callers"


@dataclass(frozen=True)
class Caller:
    """A caller who is not a user: how the gate recognises one, and where a page sends
    someone who is not one yet.

    Attributes:
        role: Its column in the policy (``CODE_HOLDER``).
        resolve: Returns who is calling (kept as ``g.caller``) or None; reads the request.
        entry: The endpoint a page without such a caller redirects to.
        refusal: The error code an API route without one answers with, and its message.
    """

    role: str
    resolve: Callable[[], Any]
    entry: str
    refusal: tuple[str, str]


def add_caller(app: Flask, caller: Caller) -> None:
    """Let routes that declare ``caller.role`` in by ``caller.resolve`` (a domain's init_app)."""
    app.extensions.setdefault(_CALLERS, {})[caller.role] = caller


def _other_caller(app: Flask, declared, kind: str):
    """None when a non-user caller the route declares is calling (``g.caller`` set);
    otherwise, for a route only such callers may call, its refusal; else False (go on to logins)."""
    callers = [c for role, c in app.extensions.get(_CALLERS, {}).items() if declared.allows(role)]
    for caller in callers:
        found = caller.resolve()
        if found is not None:
            g.caller = found
            return None
    if callers and not (declared.roles - {c.role for c in callers}):
        caller = callers[0]
        if kind == PAGE:
            return redirect(url_for(caller.entry))
        raise LateralError(*caller.refusal)
    return False


#: What a login with a published password may open before it has set a new one.
SET_PASSWORD_ENDPOINTS = frozenset({"web.account_password"})


def enforce():
    """before_request: refuse the request unless its route's declaration lets its caller in."""
    endpoint = request.endpoint
    if request.method == "OPTIONS":
        return None  # describes a route; no data
    if endpoint is None:
        return None  # no such route (404) or method (405), whoever asks
    app = current_app
    declared = access_for(app, endpoint, request.method)
    if declared is None:
        raise LateralError("forbidden", "this route has no declared access, so nobody may call it")
    if declared.public:
        return None
    kind = login_kind(app, endpoint)
    other = _other_caller(app, declared, kind)
    if other is not False:
        return other
    if kind == PAGE:
        user = logged_in_user()
        if user is None:
            return redirect(url_for("web.login", next=request.path))
        g.user = user
    elif kind == GIS:
        refused = _gis_login(endpoint)
        if refused is not None:
            return refused
    else:
        kernel_auth.authenticate()
    if endpoint not in SET_PASSWORD_ENDPOINTS and auth_service.must_set_password(g.user):
        # A published password (a seeded demo login) on a real database: nothing else first.
        if kind == PAGE:
            return redirect(url_for("web.account_password"))
        raise kernel_auth.password_change_required()
    role = g.user.role
    if declared.allows(role):
        return None
    if kind == PAGE:
        return render_template("forbidden.html", what=purpose(app, endpoint)), 403
    raise LateralError("forbidden", f"this needs the role {' or '.join(sorted(declared.roles))}",
                   {"your_role": role, "allowed_roles": sorted(declared.roles)})


def _gis_login(endpoint: str):
    """The API's login rules, for the OGC API and tiles. A browser without a session is sent
    to the login form; one refused a login gets an HTML page saying how to log in; any other
    client refused a login is offered HTTP Basic (GIS clients that hold a password), the
    JSON error saying where the instructions are (``docs/qgis.md``)."""
    area = declarations(current_app).areas.get(endpoint.rpartition(".")[0])
    html = area is not None and area.wants_html is not None and area.wants_html()
    if html and not request.headers.get("Authorization") and not session.get("user_id"):
        return redirect(url_for("web.login", next=request.full_path))
    try:
        kernel_auth.authenticate()
    except LateralError as exc:
        if status_of(exc.code) != 401:
            raise
        kernel_auth.offer_basic(exc)
        if html:
            return _html_unauthorized(exc)
        raise
    return None


def _html_unauthorized(exc: LateralError):
    """The 401 as a page, for a browser at /ogc whose login was refused (a session logged
    out elsewhere, a wrong password). Only a request that tried Basic is challenged with
    it again: a stale session cookie should not raise the browser's own password box."""
    tried_basic = request.headers.get("Authorization", "").startswith("Basic ")
    challenges = exc.headers["WWW-Authenticate"] if tried_basic else [exc.headers["WWW-Authenticate"][-1]]
    body = render_template("gis_unauthorized.html", message=exc.message, docs=kernel_auth.GIS_LOGIN_DOCS,
                           login=url_for("web.login", next=request.full_path))
    return body, 401, {"WWW-Authenticate": challenges, "Content-Type": "text/html; charset=utf-8"}


def init_app(app: Flask) -> None:
    """Enforce the declarations before every request (the app's first before_request)."""
    app.before_request_funcs.setdefault(None, []).insert(0, enforce)
