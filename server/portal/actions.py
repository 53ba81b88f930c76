"""What a code holder does with the notice online, each audited as the code holder's
(``via: portal``, the code's id) and kept as a :class:`PortalAction` the desk shows.

* :func:`file_appeal`: the § 315-21H written appeal, through the desk's own workflow
  (:func:`server.notices.workflow.apply_event`): the same 10 days counted the same way, the
  same record of a late one: received after its 10 days, it is recorded and flagged late,
  and the deciding body says whether it heard it.
* :func:`submit_proof`: photos and a plumber's invoice with a note, for the
  superintendent's review (:func:`review_proof`: accept, the notice complied with the
  reason recorded; or ask for a reinspection).
* :func:`ask_for_visit`: the reinspection visit, or for a survey-access notice the survey
  visit, with the days that suit the owner.
"""

from __future__ import annotations

import os
import tempfile
from datetime import date

from flask import current_app
from sqlalchemy import select

from server.core import city
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import utcnow
from server.notices.appeals import pending_appeal
from server.notices.kinds import notice_kind
from server.notices.letters.documents import Municipality
from server.notices.letters.texts import text_fields
from server.notices.models import Notice, NoticeAppeal
from server.notices.workflow import TRANSITIONS, apply_event, is_closed
from server.portal.i18n import N_, _, clock_time, language, long_date, money
from server.portal.lookup import CodeHolder, notice_of
from server.portal.models import PortalAction, PortalFile
from server.portal.receipts import render_receipt
from server.portal.uploads import Upload, blob_store, checked_type, keep

MAX_FILES = 6
MAX_NOTE = 4000
#: The notice kinds whose visit is the survey's (the owner lets the inspector in).
SURVEY_KINDS = ("SURVEY-ACCESS",)


def _audit(action: PortalAction, who: CodeHolder, what: str, extra: dict | None = None) -> None:
    audit.record(f"portal_{what}", "notice", action.notice_id, None,
                 {"via": "portal", "portal_action_id": action.id, "lookup_code_id": who.code_id, **(extra or {})})


#: Each form field's name as the owner reads it in an error.
FIELD_WORDS = {"facts": N_("the facts"), "note": N_("the note"), "email": N_("the email address"),
               "reason": N_("the reason")}


def _text(value: str | None, field: str, required: bool = True) -> str | None:
    text = (value or "").strip()
    words = _(FIELD_WORDS[field])
    if required and not text:
        raise LateralError("invalid_fields", _("write %(field)s", field=words), {"fields": {field: ["required"]}})
    if len(text) > MAX_NOTE:
        raise LateralError("invalid_fields", _("%(field)s is longer than %(n)s characters", field=words, n=MAX_NOTE),
                           {"fields": {field: [f"at most {MAX_NOTE} characters"]}})
    return text or None


def _open(who: CodeHolder) -> Notice:
    notice = notice_of(who)
    if is_closed(notice):
        raise LateralError("invalid_transition", _("this notice is closed; nothing more is needed"),
                           {"state": notice.state})
    return notice


# ------------------------------------------------------------------ the appeal


def file_appeal(who: CodeHolder, facts: str, fee_understood: bool, email: str | None = None) -> PortalAction:
    """File the written appeal today (the city's day), as received online now.

    Raises:
        LateralError: ``invalid_fields`` without facts or the fee acknowledged; the desk's
            own refusals (``invalid_transition``). A late appeal is recorded, flagged late.
    """
    notice = _open(who)
    facts_text = _text(facts, "facts")
    if not fee_understood:
        raise LateralError("invalid_fields", _("an appeal is filed with the fee; tick the box to say you understand"),
                           {"fields": {"fee": ["required"]}})
    apply_event(notice, "appeal", who, note=facts_text)
    appeal = pending_appeal(notice)
    assert appeal is not None  # the workflow just filed it
    action = PortalAction(notice_id=notice.id, lookup_code_id=who.code_id, kind="appeal", note=facts_text,
                          appeal_id=appeal.id, email=_text(email, "email", required=False), language=language())
    db.session.add(action)
    db.session.flush()
    _audit(action, who, "appeal", {"appeal_id": appeal.id, "filed_on": appeal.filed_on.isoformat()})
    return action


def appeal_of(action: PortalAction) -> NoticeAppeal:
    appeal = db.session.get(NoticeAppeal, action.appeal_id) if action.appeal_id else None
    if appeal is None:
        raise LateralError("not_found", "no such appeal")
    return appeal


def action_of(who: CodeHolder, action_id: int) -> PortalAction:
    """The code holder's own action on their notice; anything else is not found."""
    action = db.session.get(PortalAction, action_id)
    if action is None or action.notice_id != who.notice_id:
        raise LateralError("not_found", _("no such request"))
    return action


# ------------------------------------------------------------------ proof of correction


def submit_proof(who: CodeHolder, note: str, uploads: list[Upload], email: str | None = None) -> PortalAction:
    """Keep the proof and its files for the superintendent's review.

    Raises:
        LateralError: ``invalid_fields`` (no file, too many, no note), ``too_large``,
            ``unsupported_format`` and the photo checks' codes; nothing is kept then.
    """
    notice = _open(who)
    note_text = _text(note, "note")
    uploads = [u for u in uploads if u.data]
    if not uploads or len(uploads) > MAX_FILES:
        raise LateralError("invalid_fields", _("send 1 to %(n)s files: photos of the work, or the invoice",
                                               n=MAX_FILES),
                           {"fields": {"files": [f"1 to {MAX_FILES} files"]}})
    store = blob_store()
    checked = []
    with tempfile.TemporaryDirectory(prefix="lateral-portal-") as folder:
        for upload in uploads:
            checked.append((upload, checked_type(upload, folder)))
    action = PortalAction(notice_id=notice.id, lookup_code_id=who.code_id, kind="proof", note=note_text,
                          email=_text(email, "email", required=False), language=language())
    db.session.add(action)
    db.session.flush()
    for upload, kind in checked:
        digest = keep(store, upload)
        db.session.add(PortalFile(action_id=action.id, sha256=digest, media_type=kind,
                                  filename=os.path.basename(upload.filename)[:200] or "file", size=len(upload.data)))
    db.session.flush()
    _audit(action, who, "proof", {"files": len(checked)})
    return action


def proofs_waiting() -> list[PortalAction]:
    return list(db.session.scalars(select(PortalAction).filter_by(kind="proof", state="received")
                                   .order_by(PortalAction.received_at)))


def visits_asked() -> list[PortalAction]:
    """Visits owners asked for on notices still open, oldest first."""
    found = db.session.execute(select(PortalAction, Notice).join(Notice, Notice.id == PortalAction.notice_id)
                               .where(PortalAction.kind == "visit").order_by(PortalAction.received_at))
    return [a for a, notice in found if not is_closed(notice)]


def review_proof(action_id: int, decision: str, reason: str, actor) -> PortalAction:
    """Accept a proof (the notice complied, ``reason`` recorded) or ask for a reinspection.

    Raises:
        LateralError: ``not_found``, ``not_open`` (reviewed already), ``invalid_fields``.
    """
    action = db.session.get(PortalAction, action_id)
    if action is None or action.kind != "proof":
        raise LateralError("not_found", f"no proof of correction {action_id}")
    if action.state != "received":
        raise LateralError("not_open", f"this proof was reviewed already ({action.state})")
    reason_text = _text(reason, "reason")
    if decision not in ("accept", "reinspect"):
        raise LateralError("invalid_fields", "accept the proof or ask for a reinspection",
                           {"fields": {"decision": ["accept or reinspect"]}})
    notice = db.session.get_one(Notice, action.notice_id)
    if decision == "accept":
        apply_event(notice, "comply", actor, note=f"proof of correction sent online: {reason_text}")
    action.state = "accepted" if decision == "accept" else "reinspection"
    action.reviewed_by_id, action.reviewed_at, action.review_note = getattr(actor, "id", None), utcnow(), reason_text
    db.session.flush()
    audit.record("review_portal_proof", "notice", action.notice_id, {"state": "received"},
                 {"state": action.state, "portal_action_id": action.id, "reason": reason_text}, actor)
    return action


# ------------------------------------------------------------------ visits


def ask_for_visit(who: CodeHolder, days: list[date], note: str | None, email: str | None = None) -> PortalAction:
    """Ask for the reinspection visit (the survey visit, for a survey-access notice) on one
    of ``days`` (1 to 5 days, from tomorrow on)."""
    notice = _open(who)
    today = city.current().today()
    days = sorted(set(days))
    if not days or len(days) > 5 or days[0] <= today:
        raise LateralError("invalid_fields", _("choose 1 to 5 days, from tomorrow on"),
                           {"fields": {"days": ["1 to 5 days after today"]}})
    action = PortalAction(notice_id=notice.id, lookup_code_id=who.code_id, kind="visit",
                          note=_text(note, "note", required=False), preferred_days=[d.isoformat() for d in days],
                          email=_text(email, "email", required=False), language=language())
    db.session.add(action)
    db.session.flush()
    _audit(action, who, "visit", {"survey": notice.kind in SURVEY_KINDS, "days": action.preferred_days})
    return action


def actions_of(notice_ids: list[int]) -> dict[int, list[PortalAction]]:
    """Each notice's portal actions, first to last (the desk shows them)."""
    out: dict[int, list[PortalAction]] = {}
    if notice_ids:
        for a in db.session.scalars(select(PortalAction).where(PortalAction.notice_id.in_(notice_ids))
                                    .order_by(PortalAction.id)):
            out.setdefault(a.notice_id, []).append(a)
    return out


# ------------------------------------------------------------------ the appeal's receipt

BODIES = {"commission": N_("Utility Commission"), "council": N_("Common Council")}


def appeal_receipt(action: PortalAction) -> dict:
    """What the confirmation page and the receipt say of an appeal filed online."""
    appeal = appeal_of(action)
    notice = db.session.get_one(Notice, action.notice_id)
    here = city.current()
    received = action.received_at.astimezone(here.time_zone)
    fields = appeal_fields(notice.kind)
    return {
        "reference": f"P-{action.id}",
        "title": _(notice_kind(notice.kind).title),
        "site_address": notice.site_address or "",
        "parcel_number": notice.parcel_number,
        "body": body_name(appeal.level),
        "received": _("%(day)s at %(time)s", day=long_date(received.date()), time=clock_time(received)),
        "filed_on": long_date(appeal.filed_on),
        "due_on": long_date(appeal.due_on),
        "late": bool(appeal.late),
        "decide_by": long_date(appeal.decide_by) if appeal.decide_by else None,
        "facts": appeal.facts or "",
        "fee": fee_sentence(fields),
        "phone": fields["phone"],
        "utility": fields["utility"],
    }


def body_name(level: str) -> str:
    """Who decides an appeal at ``level``, in the reader's words."""
    name = BODIES[level]
    if level == "commission":
        name = Municipality.from_rulebook(city.current().rulebook).commission
    return _(name)


def appeal_fields(kind: str) -> dict:
    rb = city.current().rulebook
    return text_fields(kind, Municipality.from_rulebook(rb), rb)


def choices(notice: Notice) -> dict:
    """What the owner may do online with ``notice`` now."""
    open_ = not is_closed(notice)
    return {
        "appeal": open_ and notice_kind(notice.kind).appeal and (notice.state, "appeal") in TRANSITIONS,
        "proof": open_, "visit": open_, "survey": notice.kind in SURVEY_KINDS,
        "fee": fee_sentence(appeal_fields(notice.kind)),
    }


def fee_sentence(fields: dict) -> str:
    """The appeal fee, as the letter states it (§ 315-21H)."""
    if fields.get("appeal_fee") is not None:
        return _("A fee of %(fee)s, set by the Common Council, goes with the appeal. "
                 "It is paid back if the appeal is decided in your favor.",
                 fee=money(float(fields["appeal_fee"])))
    return _("A fee set by the Common Council goes with the appeal (call %(phone)s for the amount). "
             "It is paid back if the appeal is decided in your favor.", phone=fields["phone"])


def receipt_pdf(action: PortalAction) -> bytes:
    r = appeal_receipt(action)
    parcel = _("parcel %(number)s", number=r["parcel_number"])
    rows = [(_("Receipt number"), r["reference"]), (_("Notice"), r["title"]),
            (_("Property"), f"{r['site_address']}, {parcel}".lstrip(", ")),
            (_("Appeal to"), r["body"]), (_("Received online"), r["received"]),
            (_("Filed on"), _("%(day)s (the last day to appeal was %(due)s)", day=r["filed_on"], due=r["due_on"])),
            (_("Your facts"), r["facts"])]
    closing = [r["fee"]]
    if r["decide_by"]:
        closing.append(_("The %(body)s decides the appeal in writing by %(day)s (§ 315-21H).",
                         body=r["body"], day=r["decide_by"]))
    closing.append(_("Questions: call the %(utility)s at %(phone)s.", utility=r["utility"], phone=r["phone"]))
    return render_receipt(_("Appeal received (§ 315-21H)"), [r["utility"]], rows, closing)


def files_of(action_ids: list[int]) -> dict[int, list[PortalFile]]:
    out: dict[int, list[PortalFile]] = {}
    if action_ids:
        for f in db.session.scalars(select(PortalFile).where(PortalFile.action_id.in_(action_ids))
                                    .order_by(PortalFile.id)):
            out.setdefault(f.action_id, []).append(f)
    return out


def open_file(file_id: int):
    """A proof's file, for staff: (the row, a binary stream from the blob store)."""
    row = db.session.get(PortalFile, file_id)
    store = current_app.extensions.get("lateral_blobs")
    if row is None or store is None:
        raise LateralError("not_found", f"no file {file_id}")
    return row, store.open(row.sha256)


def online_appeals(notice_ids: list[int]) -> dict[int, str]:
    """appeal id -> the portal receipt number, for the appeals of ``notice_ids`` filed online."""
    return {a.appeal_id: f"P-{a.id}" for actions in actions_of(notice_ids).values() for a in actions
            if a.kind == "appeal" and a.appeal_id is not None}


def notices_of(portal_actions: list[PortalAction]) -> dict[int, Notice]:
    ids = sorted({a.notice_id for a in portal_actions})
    return {n.id: n for n in db.session.scalars(select(Notice).where(Notice.id.in_(ids)))} if ids else {}
