"""Who may call each route: declared on the route, and everything built from that.

A route names the roles that may call it with ``@access(...)`` (:mod:`.declare`), using
the roles and groups of :mod:`.roles`; :mod:`.policy` reads the declarations back as
one table and as ``docs/security.md``'s matrix, :mod:`.nav` as the header's links. The
gate that enforces them before every request is ``server/core/gate.py``. This package
imports no domain and nothing of the accounts: the accounts' own routes declare here too.
"""

from server.core.access.declare import (
    ANONYMOUS,
    API,
    CALLERS,
    GIS,
    PAGE,
    PUBLIC,
    Access,
    NavLink,
    access,
    allow,
    declare,
    gis,
    pages,
)
from server.core.access.roles import (
    ADMIN,
    CLERK,
    CODE_HOLDER,
    DESK,
    FIELD,
    INSPECTOR,
    MAILROOM,
    PLUMBER,
    PLUMBERS,
    ROLES,
    SIGNED_IN,
    SUPERINTENDENT,
    SUPERVISORS,
)

__all__ = [
    "ADMIN", "ANONYMOUS", "API", "CALLERS", "CLERK", "CODE_HOLDER", "DESK", "FIELD", "GIS", "INSPECTOR", "MAILROOM",
    "PAGE", "PLUMBER", "PLUMBERS", "PUBLIC", "ROLES", "SIGNED_IN", "SUPERINTENDENT", "SUPERVISORS", "Access",
    "NavLink", "access", "allow", "declare", "gis", "pages",
]
