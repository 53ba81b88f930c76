"""Proof of service: the return receipt, and what is done when it does not come back.

* A certified letter whose receipt has not come back ``[service] receipt_wait_days``
  after mailing is put before the clerk (:func:`awaiting_receipt`), who records what
  USPS tracking shows: delivered (with the date), refused or unclaimed. Nothing is
  assumed meanwhile: the owner's clock has not started.
* Refused or unclaimed mail does not start the clock either. The rulebook's substitute
  steps (``[service] substitute_steps``; by default a second mailing by first-class mail
  and a posting at the premises) are recorded, each with its date
  (:func:`record_step`); once all are, the clock starts from the last of them.
"""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select

from gis.rulebook import Rulebook
from server.core.errors import LateralError
from server.core.extensions import db
from server.notices.article_numbers import human_readable
from server.notices.calendar import fmt
from server.notices.models import SERVICE_STEPS, Notice, ServiceStep

STEP_WORDS = {"first_class_mailing": "a second mailing by first-class mail", "posting": "a posting at the premises"}


def required_steps(rb: Rulebook) -> tuple[str, ...]:
    """The substitute steps the rulebook requires, in its order."""
    steps = tuple(rb.section("service").get("substitute_steps", SERVICE_STEPS))
    unknown = set(steps) - set(SERVICE_STEPS)
    if unknown:
        raise LateralError("rulebook_invalid", f"[service] substitute_steps names unknown steps: {sorted(unknown)}")
    return steps


def receipt_wait_days(rb: Rulebook) -> int:
    return int(rb.section("service").get("receipt_wait_days", 21))


def usps_hold_days(rb: Rulebook) -> int:
    """How long USPS holds certified mail it could not deliver before returning it
    unclaimed (``[service] usps_hold_days``; 15 when the rulebook says nothing)."""
    return int(rb.section("service").get("usps_hold_days", 15))


def check_unclaimed_on(notice: Notice, on: date, rb: Rulebook) -> None:
    """Mail cannot come back unclaimed before USPS has held it its days.

    Raises:
        LateralError: ``invalid_date`` for a day before mailing + ``usps_hold_days``.
    """
    if notice.mailed_on is None:
        return
    earliest = notice.mailed_on + timedelta(days=usps_hold_days(rb))
    if on < earliest:
        raise LateralError("invalid_date",
                           f"certified mail cannot come back unclaimed on {on.isoformat()}: USPS holds it "
                           f"{usps_hold_days(rb)} days, so not before {earliest.isoformat()} "
                           f"(mailed {notice.mailed_on.isoformat()})",
                           {"fields": {"on": [f"not before {earliest.isoformat()}"]}})


def awaiting_receipt(notice: Notice, on: date, rb: Rulebook) -> bool:
    """Mailed, no return receipt recorded, and the wait is over: the clerk must decide."""
    return (notice.state == "mailed" and notice.mailed_on is not None
            and on > notice.mailed_on + timedelta(days=receipt_wait_days(rb)))


def steps_of(notice: Notice) -> list[ServiceStep]:
    return list(db.session.scalars(select(ServiceStep).filter_by(notice_id=notice.id).order_by(ServiceStep.id)))


def record_step(notice: Notice, step: str | None, on: date, note: str | None, actor, rb: Rulebook) -> ServiceStep:
    """Record one substitute step taken on ``on``.

    Raises:
        LateralError: ``invalid_fields`` for a step the rulebook does not ask for,
            ``step_recorded`` for one already recorded, ``invalid_date`` for a date before
            the mail came back.
    """
    steps = required_steps(rb)
    if step not in steps:
        raise LateralError("invalid_fields", f"step must be one of {', '.join(steps)}",
                           {"fields": {"step": [f"one of {', '.join(steps)}"]}})
    if any(s.step == step for s in steps_of(notice)):
        raise LateralError("step_recorded", f"{STEP_WORDS[step]} is already recorded for notice {notice.id}")
    came_back = notice.delivery_event_on
    if came_back is not None and on < came_back:
        raise LateralError("invalid_date", f"{on.isoformat()} is before the mail came back "
                           f"{notice.delivery_event} on {came_back.isoformat()}")
    row = ServiceStep(notice_id=notice.id, step=step, done_on=on, note=note, recorded_by_id=getattr(actor, "id", None))
    db.session.add(row)
    db.session.flush()
    return row


def substitute_service(notice: Notice, rb: Rulebook) -> tuple[date | None, list[str]]:
    """The day substitute service was complete (the last step), or None while a step is
    missing; and the sentences that say what was done."""
    done = {s.step: s for s in steps_of(notice)}
    required = required_steps(rb)
    came_back = f" {fmt(notice.delivery_event_on)}" if notice.delivery_event_on else ""
    words = [f"certified mail {notice.delivery_event}{came_back}, so it did not start the clock"]
    words += [f"{STEP_WORDS[k]} {fmt(done[k].done_on)}" for k in required if k in done]
    missing = [STEP_WORDS[k] for k in required if k not in done]
    if missing:
        words.append("the clock waits for " + " and ".join(missing))
        return None, words
    last = max(done[k].done_on for k in required)
    words.append(f"substitute service complete: the clock starts from the last step, {fmt(last)}")
    return last, words


DELIVERY_WORDS = {"refused": "refused", "unclaimed": "unclaimed"}


def delivered_per(notice: Notice) -> str:
    """Where a delivery date came from: the return receipt, or USPS tracking (the clerk's
    choice when the receipt never came back, kept in the clock's first step)."""
    first = (notice.deadline_steps or [""])[0]
    return "USPS tracking" if "per USPS tracking" in first else "the return receipt (PS Form 3811)"


def service_record(notice: Notice, rb: Rulebook) -> tuple[str, ...]:
    """What was done to serve a mailed notice, in the order it was done, as plain sentences
    for a reprinted letter: the certified mailing; its delivery (with the source of the
    date) or its return refused or unclaimed and each substitute step with its date; and
    the day the clock started from. The legal basis is printed only where the rulebook
    states one (``[service] basis``); nothing is supplied in its place.
    """
    if notice.mailed_on is None:
        return ()
    number = f", article number {human_readable(notice.article_number)}" if notice.article_number else ""
    lines = [f"Sent by certified mail, return receipt requested, on {fmt(notice.mailed_on)}{number}."]
    event, on = notice.delivery_event, notice.delivery_event_on
    if event == "delivered" and on is not None:
        lines.append(f"Delivered on {fmt(on)}, per {delivered_per(notice)}.")
    elif event in DELIVERY_WORDS and on is not None:
        lines.append(f"The certified letter came back {DELIVERY_WORDS[event]} on {fmt(on)}; "
                     "it did not serve the notice.")
        done = {s.step: s for s in steps_of(notice)}
        for step in sorted(required_steps(rb), key=lambda k: (k not in done, done[k].done_on if k in done else on)):
            if step == "first_class_mailing":
                lines.append(f"Mailed again by first-class mail on {fmt(done[step].done_on)}." if step in done
                             else "Not yet done: a second mailing by first-class mail.")
            else:
                lines.append(f"Posted at the premises on {fmt(done[step].done_on)}." if step in done
                             else "Not yet done: a posting at the premises.")
    else:
        lines.append("No return receipt or USPS tracking result is recorded yet.")
    if notice.served_on is not None:
        how = {"mailing": "the day of mailing", "delivery": "the day of delivery"}.get(notice.clock_starts or "", "")
        if event in DELIVERY_WORDS and notice.clock_starts != "mailing":
            how = "the last of these steps"
        lines.append(f"The time to act runs from {fmt(notice.served_on)}" + (f", {how}." if how else "."))
        if event in DELIVERY_WORDS:
            lines.append(f"The days to appeal (§ 315-21H) also run from {fmt(notice.served_on)}, "
                         "not from the date of the certified letter.")
    else:
        lines.append("The time to act has not started yet.")
    if notice.deadline is not None:
        later = (", later than the date printed above, which it replaces"
                 if notice.deadline_printed is not None and notice.deadline > notice.deadline_printed else "")
        lines.append(f"The last day to act is {fmt(notice.deadline)}{later}.")
    basis = str(rb.section("service").get("basis") or "").strip()
    if basis:
        lines.append(f"Service under {basis}.")
    return tuple(lines)
