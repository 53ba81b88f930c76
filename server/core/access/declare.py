"""How a route says who may call it: ``@access(...)`` on the view, ``pages``/``gis`` on its blueprint.

Every view carries its :class:`Access` (a view function, or each method of a
``MethodView``)::

    @blp.route("/rules/run", methods=["POST"])
    @access(SUPERVISORS)
    def run(): ...

A blueprint of web pages says so with :func:`pages` (a missing login is sent to the login
form, and its 403 page says why in ``purpose``), one read by GIS clients with :func:`gis`
(a missing login gets 401 with an HTTP Basic challenge); any other route answers as the
JSON API does. A page that belongs in the header's navigation names its label there
(``nav=NavLink("Notices", 30)``). Routes whose view the app does not write (static files,
flask-smorest's OpenAPI document) are declared by endpoint with :func:`declare` where they
are registered.

The gate (``server/core/gate.py``) reads these before every request and refuses a route
that declares nothing; the policy table, ``docs/security.md``'s matrix and the nav are
built from them (:mod:`server.core.access.policy`, :mod:`server.core.access.nav`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, TypeVar

from flask.sansio.app import App
from flask.sansio.blueprints import Blueprint, BlueprintSetupState

from server.core.access.roles import CODE_HOLDER, INSPECTOR, ROLES

ANONYMOUS = "anonymous"
#: The matrix's columns, least to most trusted: no login, a notice's lookup code, the logins.
CALLERS = (ANONYMOUS, CODE_HOLDER, *ROLES)
#: Anyone, logged in or not.
PUBLIC = frozenset(CALLERS)

#: How a route answers a caller who has not logged in: the login form (``PAGE``), 401 with
#: an HTTP Basic challenge for GIS clients (``GIS``), or the JSON API's 401 (``API``).
PAGE, GIS, API = "page", "gis", "api"
LOGINS = (PAGE, GIS, API)

# The attributes a declaration leaves on a view function.
_ACCESS = "lateral_access"
_NAV = "lateral_nav"
_EXTENSION = "lateral_access"

V = TypeVar("V", bound=Callable[..., Any])


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
    own_roles: frozenset[str] = frozenset({INSPECTOR})

    @property
    def public(self) -> bool:
        return ANONYMOUS in self.roles

    def allows(self, caller: str) -> bool:
        return caller in self.roles


@dataclass(frozen=True)
class NavLink:
    """A page's link in the header of every page, shown to the roles that may open it.

    Attributes:
        label: The link's text.
        order: Its place, left to right (lower first): the survey, the office's work,
            administration, then the API.
    """

    label: str
    order: int


@dataclass(frozen=True)
class Area:
    """What the routes of one blueprint share.

    Attributes:
        login: ``PAGE``, ``GIS`` or ``API``: how a missing login is answered.
        purpose: For pages, the 403 page's sentence saying whom the pages are for.
        wants_html: For GIS routes with HTML pages of their own, whether this request is
            a browser's (sent to the login form instead of being challenged).
    """

    login: str
    purpose: str | None = None
    wants_html: Callable[[], bool] | None = None


@dataclass
class Declarations:
    """One app's declarations made at registration time (views carry their own)."""

    endpoints: dict[str, Access] = field(default_factory=dict)
    logins: dict[str, str] = field(default_factory=dict)
    areas: dict[str, Area] = field(default_factory=dict)


def allow(*roles: str | Collection[str], own: str | None = None,
          own_roles: Collection[str] = (INSPECTOR,)) -> Access:
    """An :class:`Access` for ``roles`` (role names, or sets of them such as ``SUPERVISORS``).

    Raises:
        ValueError: For no role at all, or a name that is not a role: a typo would
            otherwise lock everyone out without a word.
    """
    names = frozenset(r for group in roles for r in ((group,) if isinstance(group, str) else group))
    if not names:
        raise ValueError("say who may call the route: a role, a set of roles or PUBLIC")
    unknown = sorted((names | frozenset(own_roles)) - PUBLIC)
    if unknown:
        raise ValueError(f"no role {', '.join(map(repr, unknown))}; the callers are {', '.join(CALLERS)}")
    return Access(names, own, frozenset(own_roles))


def access(*roles: str | Collection[str], own: str | None = None, own_roles: Collection[str] = (INSPECTOR,),
           nav: NavLink | None = None) -> Callable[[V], V]:
    """Declare who may call the view it decorates (see :func:`allow`); ``nav`` lists the
    page in the header for those roles.

    Put it right under the route decorator: it leaves the declaration on the function
    the route registers (decorators made with ``functools.wraps`` carry it outwards too).
    """
    declared = allow(*roles, own=own, own_roles=own_roles)

    def decorate(view: V) -> V:
        setattr(view, _ACCESS, declared)
        if nav is not None:
            setattr(view, _NAV, nav)
        return view

    return decorate


def declared_on(view: Callable[..., Any] | None) -> Access | None:
    return getattr(view, _ACCESS, None)


def nav_on(view: Callable[..., Any] | None) -> NavLink | None:
    return getattr(view, _NAV, None)


def declarations(app: App) -> Declarations:
    """The app's declarations made by endpoint and by blueprint."""
    found = app.extensions.get(_EXTENSION)
    if found is None:
        found = app.extensions[_EXTENSION] = Declarations()
    return found


def declare(app: App, endpoint: str, *roles: str | Collection[str], own: str | None = None,
            login: str | None = None) -> None:
    """Declare a route whose view the app does not write (static files, a library's), by
    its endpoint, as :func:`allow` does; ``login`` when it is not its blueprint's."""
    if login is not None and login not in LOGINS:
        raise ValueError(f"login must be one of {', '.join(LOGINS)}")
    declarations(app).endpoints[endpoint] = allow(*roles, own=own)
    if login is not None:
        declarations(app).logins[endpoint] = login


def pages(blueprint: Blueprint, purpose: str | None = None) -> None:
    """``blueprint``'s routes are web pages: without a login they send people to the form,
    and a role they refuse gets a page saying ``purpose``."""
    _area(blueprint, Area(PAGE, purpose))


def gis(blueprint: Blueprint, wants_html: Callable[[], bool] | None = None) -> None:
    """``blueprint``'s routes are read by GIS clients (QGIS, GDAL) that hold a password: a
    missing login is offered HTTP Basic, except for a browser (``wants_html``)."""
    _area(blueprint, Area(GIS, wants_html=wants_html))


def _area(blueprint: Blueprint, area: Area) -> None:
    def record(state: BlueprintSetupState) -> None:
        name = f"{state.name_prefix}.{state.name}".lstrip(".")
        declarations(state.app).areas[name] = area

    # Told to each app the blueprint is registered on (tests build many).
    blueprint.record(record)
