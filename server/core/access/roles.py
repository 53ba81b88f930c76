"""The roles of Lateral's users, and the groups of them the city's work falls to.

Each group is declared here once: routes name them in their ``@access`` declarations,
services in the checks they make on the row (who may waive, who records a receipt), and
the user model takes :data:`ROLES` for its ``CHECK``. Pure: no Flask, no database.
"""

from __future__ import annotations

INSPECTOR = "inspector"
SUPERINTENDENT = "superintendent"
CLERK = "clerk"
ADMIN = "admin"
#: A licensed plumber with an account on the portal (``server/portal/plumbers.py``): not
#: the city's staff, and in no staff group below.
PLUMBER = "plumber"
#: The city's staff, in the order the security matrix shows them (field to office to administration).
STAFF = (INSPECTOR, SUPERINTENDENT, CLERK, ADMIN)
#: Every role of a login: the staff's, then the plumbers'.
ROLES = (*STAFF, PLUMBER)

#: Not a user's role: whoever holds a notice's lookup code (the code printed on its letter,
#: with the parcel number) for the portal's owner pages; no login, no account
#: (``server/portal/``). The gate learns who holds one from the portal (:func:`server.core.gate.add_caller`).
CODE_HOLDER = "code_holder"

#: Anyone of the city's staff with a login (not a plumber's).
SIGNED_IN = frozenset(STAFF)
#: Plumbers whose account the clerk verified.
PLUMBERS = frozenset({PLUMBER})
#: The superintendent and the administrator: runs the rules, assigns and reviews work,
#: certifies the survey, drafts notices.
SUPERVISORS = frozenset({SUPERINTENDENT, ADMIN})
#: The notice desk: the clerk, the superintendent and the administrator.
DESK = frozenset({CLERK, SUPERINTENDENT, ADMIN})
#: The clerk and the administrator: certified mail, receipts, appeals, the election calendar.
MAILROOM = frozenset({CLERK, ADMIN})
#: Who works in the field: inspectors, and the superintendent and administrator over them.
FIELD = frozenset({INSPECTOR, SUPERINTENDENT, ADMIN})
