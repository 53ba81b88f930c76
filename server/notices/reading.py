"""A notice as a person reads it: with what became of its cited violations, its appeals
and service steps, and the events a person may send now.

The routes hand notices through :func:`read` before the wire schema dumps them, so the
schema only shapes values and a whole page costs one query for each of these, not one
per notice.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.notices.citations import citations
from server.notices.due_process import appeals_by_notice, steps_by_notice
from server.notices.models import Notice
from server.notices.workflow import SYSTEM, TRANSITIONS, allowed_events


class NoticeRead:
    """A notice, read through, with its :class:`~server.notices.citations.Citations`."""

    def __init__(self, notice: Notice, found, appeals=(), service_steps=()):
        self._notice, self.citations = notice, found
        self.appeals, self.service_steps = appeals, service_steps
        # Only what a person sends: the daily tick's own events are not offered.
        self.allowed_events = [e for e in allowed_events(notice.state)
                               if TRANSITIONS[(notice.state, e)].roles - {SYSTEM}]

    def __getattr__(self, name):
        return getattr(self._notice, name)


def read(notices: Sequence[Notice]) -> list[NoticeRead]:
    """Each of ``notices`` as read, in the same order."""
    notices = list(notices)
    found, appeals, steps = citations(notices), appeals_by_notice(notices), steps_by_notice(notices)
    return [NoticeRead(n, found[n.id], appeals.get(n.id, []), steps.get(n.id, [])) for n in notices]


def read_one(notice: Notice) -> NoticeRead:
    return read([notice])[0]
