"""What the notices domain announces, for the domains above it (the portal) to act on.

The same way as :mod:`server.field.events`: a signal sent with the current app as sender,
a receiver connected for its app in the higher domain's ``init_app``.
"""

from __future__ import annotations

from blinker import Namespace

from server.field.events import announce
from server.notices.letters.documents import PortalInvite
from server.notices.models import Notice

_signals = Namespace()

#: A notice's letter is being printed (mailed, or printed again), in the mailing's
#: transaction. Keyword: ``notice``. A receiver returns the :class:`PortalInvite` the letter
#: prints (the lookup code it issued for the notice and the portal's address), or None.
letter_printing = _signals.signal("letter-printing")

#: A notice moved through its workflow (an event of :data:`server.notices.workflow.TRANSITIONS`
#: done and audited), in that write's transaction. Keywords: ``notice``, ``event`` (``decide``:
#: the body's decision on an appeal is recorded). Receivers return nothing.
notice_changed = _signals.signal("notice-changed")


def portal_invite(notice: Notice) -> PortalInvite | None:
    """The invitation online that ``notice``'s letter prints, if a domain offers one."""
    return next((found for found in announce(letter_printing, notice=notice) if found is not None), None)
