"""What the permits domain announces, for the domains above it (the portal) to act on.

The same way as :mod:`server.field.events`: a signal sent with the current app as sender,
a receiver connected for its app in the higher domain's ``init_app``.
"""

from __future__ import annotations

from blinker import Namespace

from server.field.events import announce
from server.permits.models import Permit

_signals = Namespace()

#: A permit took a step (``apply``, an event of the transition table, or ``assign``: its
#: inspection sent to an inspector), in the step's transaction, after its audit row.
#: Keywords: ``permit``, ``event``, ``actor``. Receivers return nothing.
permit_changed = _signals.signal("permit-changed")


def changed(permit: Permit, event: str, actor) -> None:
    announce(permit_changed, permit=permit, event=event, actor=actor)
