"""A notice's lookup code and its parcel number open that notice, and nothing else.

* :func:`issue` makes a code when a letter is printed (``server/portal/letters.py``).
* :func:`lookup` reads a code and a parcel number typed by anyone: every failure (no such
  code, another parcel's number, an expired code) is the same ``lookup_failed``, and each
  counts against the caller's address and the code (``PORTAL_LOOKUPS_PER_*``, in the login
  throttle's storage); past either, ``too_many_lookups``, the right pair included.
* :func:`holder` is who the portal's session says is calling, checked again on every
  request: a code stops working the day it expires, whatever a browser kept.
* :func:`notice_view` is all the portal shows of the notice.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from flask import session
from limits import parse
from sqlalchemy import select

from server.core import city, settings
from server.core.access.roles import CODE_HOLDER
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.web import throttle
from server.notices.kinds import notice_kind
from server.notices.letter_context import photo_paths
from server.notices.letter_findings import owner_findings
from server.notices.letters.documents import Municipality
from server.notices.letters.notice import MAX_PHOTOS, thumbnail
from server.notices.letters.texts import text_fields
from server.notices.models import Notice
from server.notices.workflow import is_closed
from server.portal.codes import CodeMistyped, digest, new_code, normalise
from server.portal.i18n import N_, _, language, long_date
from server.portal.models import LookupCode

SESSION_KEY = "portal"
#: How long a browser stays in a notice after entering its code. The session cookie is
#: signed but kept by the browser: a copy of it replayed later than this opens nothing.
SESSION_SECONDS = 60 * 60
#: What the owner reads of each notice state: (the state's name, a sentence), in English;
#: :func:`notice_view` gives the reader's language (the API's, English).
OWNER_STATES: dict[str, tuple[str, str]] = {
    "mailed": (N_("mailed"), N_("The notice was mailed to you by certified mail.")),
    "delivered": (N_("served"), N_("The notice was delivered to you.")),
    "refused": (N_("served"), N_("The notice was served on you after the certified letter came back.")),
    "unclaimed": (N_("served"), N_("The notice was served on you after the certified letter came back.")),
    "overdue": (N_("served"), N_("The last day to do the work has passed.")),
    "escalated": (N_("served"), N_("The last day to do the work has passed, and the city has taken the next step.")),
    "appealed": (N_("under appeal"), N_("Your appeal has been received and is waiting for a decision.")),
    "decided": (N_("decided"), N_("A decision has been made on the appeal.")),
    "complied": (N_("complied"), N_("The city has found that the work is done. Nothing more is needed.")),
    "withdrawn": (N_("withdrawn"), N_("The city has withdrawn this notice. Nothing more is needed.")),
}


@dataclass(frozen=True)
class CodeHolder:
    """Whoever entered a notice's code and parcel number: the notice, by the code.

    Audited as such (no user: ``id`` is None; the audit rows name the code).
    """

    code_id: int
    notice_id: int
    role: str = CODE_HOLDER
    id: None = None


def issue(notice: Notice) -> str:
    """A new lookup code for ``notice`` (its digest stored), grouped for printing."""
    code = new_code()
    row = LookupCode(notice_id=notice.id, code_sha256=digest(normalise(code)))
    db.session.add(row)
    db.session.flush()
    audit.record("issue_lookup_code", "notice", notice.id, None, {"lookup_code_id": row.id})
    return code


def _closed_on(notice: Notice) -> date:
    if notice.state == "complied" and notice.complied_on:
        return notice.complied_on
    if notice.decision == "overturned" and notice.decided_on:
        return notice.decided_on
    return city.current().day_of(notice.updated_at)


def expires_on(notice: Notice) -> date | None:
    """The last day the notice's codes open it: None while it is open."""
    if not is_closed(notice):
        return None
    days = int(city.current().rulebook.section("portal").get("code_days_after_close", 90))
    return _closed_on(notice) + timedelta(days=days)


#: A letter is printed (and its code issued) before it is mailed; until the mailing is
#: recorded, or after a mistaken recording is voided, the code opens nothing.
NOT_SENT = ("draft", "held", "approved")


def _opens(notice: Notice | None) -> bool:
    if notice is None or notice.state in NOT_SENT:
        return False
    last = expires_on(notice)
    return last is None or city.current().today() <= last


def _parcel(text: str | None) -> str:
    return re.sub(r"[^0-9A-Z]", "", (text or "").upper())


# ------------------------------------------------------------------ throttling


def _limits(code: str | None) -> list[tuple[Any, str, str]]:
    s = settings.current()
    keys = [(parse(s.portal_lookups_per_address), "portal-address", throttle.client_address())]
    if code is not None:
        keys.append((parse(s.portal_lookups_per_code), "portal-code", digest(code)))
    return keys


def _check(code: str | None) -> None:
    strategy = throttle.strategy()
    for limit, *ids in _limits(code):
        if not strategy.test(limit, *ids):
            wait = max(1, math.ceil(strategy.get_window_stats(limit, *ids).reset_time - time.time()))
            raise LateralError("too_many_lookups", _("too many tries; try again in %(n)s minutes",
                                                     n=math.ceil(wait / 60)),
                               {"retry_after": wait}, headers={"Retry-After": str(wait)})


def _failed(code: str | None) -> None:
    strategy = throttle.strategy()
    for limit, *ids in _limits(code):
        strategy.hit(limit, *ids)


# ------------------------------------------------------------------ lookups


def lookup(typed_code: str, parcel_number: str) -> CodeHolder:
    """The code holder of the notice that ``typed_code`` and ``parcel_number`` open.

    Raises:
        LateralError: ``invalid_fields`` for a code mistyped (its check symbol; says nothing
            of any notice), ``lookup_failed`` for any other mismatch, ``too_many_lookups``.
    """
    _check(None)
    try:
        code = normalise(typed_code)
    except CodeMistyped as exc:
        _failed(None)
        words = _(exc.words, **exc.fields)
        raise LateralError("invalid_fields", words, {"fields": {"code": [words]}}) from None
    _check(code)
    row = db.session.scalar(select(LookupCode).filter_by(code_sha256=digest(code)))
    notice = db.session.get(Notice, row.notice_id) if row is not None else None
    if row is None or notice is None or _parcel(parcel_number) != _parcel(notice.parcel_number) \
            or not _opens(notice):
        _failed(code)
        raise LateralError("lookup_failed", _("no notice answers to this code and parcel number; check both "
                                              "against the letter"))
    return CodeHolder(row.id, notice.id)


def enter(holder: CodeHolder) -> None:
    """Remember ``holder`` in the browser's session (signed; checked again each request)."""
    session[SESSION_KEY] = {"code": holder.code_id, "notice": holder.notice_id, "at": int(time.time())}


def leave() -> None:
    session.pop(SESSION_KEY, None)


def holder() -> CodeHolder | None:
    """The code holder the session names, if the code still opens its notice."""
    kept = session.get(SESSION_KEY)
    if not isinstance(kept, dict):
        return None
    if not isinstance(kept.get("at"), int) or not 0 <= time.time() - kept["at"] <= SESSION_SECONDS:
        leave()
        return None
    row = db.session.get(LookupCode, kept.get("code")) if isinstance(kept.get("code"), int) else None
    if row is None or row.notice_id != kept.get("notice") or not _opens(db.session.get(Notice, row.notice_id)):
        leave()
        return None
    return CodeHolder(row.id, row.notice_id)


def notice_of(who: CodeHolder) -> Notice:
    notice = db.session.get(Notice, who.notice_id)
    if notice is None:  # deleted since (cascade): the code is gone with it
        raise LateralError("lookup_required", _("enter the code and parcel number again"))
    return notice


def shared_photos(notice: Notice) -> tuple:
    """The photos the city shares with the owner: those its letter prints (on disk)."""
    return photo_paths(notice)[:MAX_PHOTOS]


def shared_photo(notice: Notice, n: int) -> str:
    """The ``n``-th shared photo (from 1), shrunk as on the letter: the file's path."""
    photos = shared_photos(notice)
    if not 1 <= n <= len(photos):
        raise LateralError("not_found", _("no photo %(n)s", n=n))
    return thumbnail(photos[n - 1], settings.current().thumb_dir)[0]


def notice_view(notice: Notice) -> dict[str, Any]:
    """Everything the portal shows of ``notice``: no owner's name, no mailing address, no ids.

    In the reader's language: the portal's own words, the notice's title and what to do
    (the kinds' words are in the catalogue); the law's sentences, the findings and how the
    date was counted are the letter's, in English (``english_only`` says so).
    """
    rb = city.current().rulebook
    municipality = Municipality.from_rulebook(rb)
    kind = notice_kind(notice.kind)
    fields = text_fields(notice.kind, municipality, rb)
    state, state_words = OWNER_STATES.get(notice.state, ("mailed", OWNER_STATES["mailed"][1]))
    # The day in force once served; until then the day the letter printed (counted from mailing).
    last_day = None if is_closed(notice) else (notice.deadline or notice.deadline_printed)
    return {
        "title": _(kind.title),
        "rule": kind.rule.format(**fields),
        "findings": [{"text": f.text, "section": f.section} for f in owner_findings(notice)],
        "parcel": {"parcel_number": notice.parcel_number, "site_address": notice.site_address},
        "action": _(kind.action).format(**fields),
        "deadline": last_day.isoformat() if last_day else None,
        "deadline_long": long_date(last_day) if last_day else None,
        "deadline_steps": list(notice.deadline_steps or []),
        "mailed_on": notice.mailed_on.isoformat() if notice.mailed_on else None,
        "state": state,
        "state_name": _(state),
        "state_words": _(state_words),
        "english_only": language() != "en",
        "photos": len(shared_photos(notice)),
        "contact": {"name": municipality.utility, "phone": municipality.phone,
                    "address": list(municipality.return_address)},
    }
