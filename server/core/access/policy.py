"""Who may call each route, read from the routes' own declarations (:mod:`server.core.access.declare`).

:func:`access_for` finds the :class:`Access` a route declares for a method: the one its
endpoint was declared with at registration, else the one on its view (on the
``MethodView`` method that serves the request). :func:`policy` is every route's, as one
table; :func:`matrix` is that table as ``docs/security.md`` shows it, written by
``flask --app server security matrix``. A route declaring nothing is refused by the
gate (``server/core/gate.py``) and listed by :func:`undeclared` (``tests/core/access``
fails for one).
"""

from __future__ import annotations

from collections.abc import Iterator

from flask.sansio.app import App
from werkzeug.routing import Rule

from server.core.access.declare import API, CALLERS, Access, declarations, declared_on

#: A page refusing a role without a purpose of its own says this.
NOT_FOR_YOUR_ROLE = "This page is not for your role."


def access_for(app: App, endpoint: str, method: str) -> Access | None:
    """The declaration for ``method`` on ``endpoint``; None when there is none.

    ``HEAD`` is answered as ``GET`` unless declared on its own.
    """
    found = declarations(app).endpoints.get(endpoint)
    if found is not None:
        return found
    view = app.view_functions.get(endpoint)
    view_class = getattr(view, "view_class", None)
    if view_class is None:
        return declared_on(view)
    handler = getattr(view_class, method.lower(), None)
    if handler is None and method == "HEAD":
        handler = getattr(view_class, "get", None)
    return declared_on(handler)


def _blueprint(endpoint: str) -> str:
    return endpoint.rpartition(".")[0]


def login_kind(app: App, endpoint: str) -> str:
    """How a route answers a missing login: ``page`` (the login form), ``gis`` or ``api``."""
    found = declarations(app)
    if endpoint in found.logins:
        return found.logins[endpoint]
    area = found.areas.get(_blueprint(endpoint))
    return area.login if area is not None else API


def purpose(app: App, endpoint: str) -> str:
    """What a page's 403 says: whom its blueprint's pages are for."""
    area = declarations(app).areas.get(_blueprint(endpoint))
    return (area.purpose if area is not None else None) or NOT_FOR_YOUR_ROLE


def route_methods(rule: Rule) -> list[str]:
    """The methods a URL rule serves that the policy must declare (``OPTIONS`` carries no
    data; ``HEAD`` follows ``GET`` where both exist)."""
    methods = set(rule.methods or ()) - {"OPTIONS"}
    if "GET" in methods:
        methods.discard("HEAD")
    return sorted(methods)


def routes(app: App) -> Iterator[tuple[str, str, str]]:
    """(rule, method, endpoint) for every route of ``app``, in path order."""
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: (r.rule, r.endpoint)):
        for method in route_methods(rule):
            yield rule.rule, method, rule.endpoint


def policy(app: App) -> dict[str, dict[str, Access]]:
    """endpoint -> {method: Access} for every declared route of ``app``."""
    table: dict[str, dict[str, Access]] = {}
    for _, method, endpoint in routes(app):
        found = access_for(app, endpoint, method)
        if found is not None:
            table.setdefault(endpoint, {})[method] = found
    return table


def undeclared(app: App) -> list[str]:
    """Routes of ``app`` that declare nothing."""
    return [f"{method} {rule} ({endpoint})" for rule, method, endpoint in routes(app)
            if access_for(app, endpoint, method) is None]


# ------------------------------------------------------------------ the matrix


def _cell(declared: Access, caller: str) -> str:
    if not declared.allows(caller):
        return "—"
    return "own" if declared.own and caller in declared.own_roles else "yes"


def matrix(app: App) -> str:
    """``docs/security.md``'s route table: every route × caller, from the routes' declarations.

    Raises:
        LookupError: For a route that declares nothing.
    """
    head = ["| method | route | " + " | ".join(CALLERS) + " |",
            "|---|---|" + "---|" * len(CALLERS)]
    rows: list[str] = []
    notes: dict[str, int] = {}
    for rule, method, endpoint in routes(app):
        declared = access_for(app, endpoint, method)
        if declared is None:
            raise LookupError(f"{method} {rule} ({endpoint}) has no declared access")
        mark = ""
        if declared.own:
            n = notes.setdefault(declared.own, len(notes) + 1)
            mark = f" [{n}]"
        rows.append(f"| {method} | `{rule}`{mark} | " + " | ".join(_cell(declared, c) for c in CALLERS) + " |")
    own = [f"{n}. {text}" for text, n in notes.items()]
    return "\n".join([*head, *rows, "", "*own* — own work only:", "", *own]) + "\n"
