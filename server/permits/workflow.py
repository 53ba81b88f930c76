"""The permit workflow: the transition table, the refusals the ordinance makes, and one
function per step for the office pages, the API and the portal to call.

States (docs/permits.md has the table)::

    applied -> under_review -> approved (or rejected with the reason, § 315-11E(3))
      -> issued once the fees are paid (§ 315-11E(3)) -> scheduled (not in frozen ground,
      § 315-13A(3)) -> inspection_requested (LATERAL-INSPECT, § 315-13C(2))
      -> passed | failed (corrections; requested again) -> connected under supervision
      (§ 315-13E) -> closed;  expired;  withdrawn

Every step goes through :func:`step`: the (state, event) pair must be in
:data:`TRANSITIONS` (409 ``invalid_transition``), the caller's role one it allows (403),
the step's own checks pass (each a :class:`~server.core.errors.LateralError` raised
before anything is written), then a :class:`PermitEvent` dated on the city's calendar and
an audit row are written in the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from gis.rulebook import FrozenSeason
from server.core import city
from server.core.access.roles import ADMIN, DESK, FIELD, MAILROOM, PLUMBERS, SIGNED_IN, SUPERINTENDENT
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import as_utc, utcnow
from server.network.models import Parcel
from server.permits import events
from server.permits.models import FINAL_STATES, KINDS, Permit, PermitEvent

#: Work that opens the street to tap the main: not while the ground is frozen (TAP-FROZEN).
STREET_OPENING_KINDS = ("new_connection", "tap", "excavation")
#: Work that ends in a connection made under the Commission's supervision (§ 315-13E).
CONNECTING_KINDS = ("new_connection", "tap", "lateral_repair")
#: Who may approve under the Commission's delegation (the superintendent, § 315-11E(3)).
DELEGATES = frozenset({SUPERINTENDENT, ADMIN})
#: Who takes an application (the clerk at the counter; the portal adds the plumbers).
APPLIERS = DESK
#: Who holds a permit online: the plumber who applied for it on the portal asks for its
#: inspections (the portal checks that the permit is theirs; the staff's routes take staff only).
HOLDERS = PLUMBERS
#: Who may open the street in frozen ground, with a reason (TAP-FROZEN).
OVERRIDERS = frozenset({SUPERINTENDENT, ADMIN})


@dataclass(frozen=True)
class Transition:
    source: str
    event: str
    target: str
    roles: frozenset[str]


def _table(*rows: tuple[tuple[str, ...] | str, str, str | None, frozenset[str]]) -> dict[tuple[str, str], Transition]:
    out = {}
    for sources, event, target, roles in rows:
        for source in (sources,) if isinstance(sources, str) else sources:
            out[(source, event)] = Transition(source, event, target or source, roles)
    return out


OPEN_BEFORE_WORK = ("applied", "under_review", "approved", "issued", "scheduled")
TRANSITIONS: dict[tuple[str, str], Transition] = _table(
    ("applied", "review", "under_review", DESK),
    ("under_review", "approve", "approved", DESK),
    (("applied", "under_review"), "reject", "rejected", DESK),
    # The Clerk-Treasurer takes the payment; the permit stays approved until issued.
    ("approved", "pay", None, MAILROOM | {SUPERINTENDENT}),
    ("approved", "issue", "issued", DESK),
    (("issued", "scheduled"), "schedule", "scheduled", DESK),
    (("scheduled", "failed"), "request_inspection", "inspection_requested", DESK | HOLDERS),
    ("inspection_requested", "pass", "passed", FIELD),
    ("inspection_requested", "fail", "failed", FIELD),
    ("passed", "connect", "connected", FIELD),
    (("passed", "connected"), "close", "closed", DESK),
    (("approved", "issued", "scheduled"), "expire", "expired", DESK),
    (OPEN_BEFORE_WORK, "withdraw", "withdrawn", DESK),
)
EVENTS = tuple(dict.fromkeys(event for _, event in TRANSITIONS))


def senders(event: str) -> frozenset[str]:
    """The roles that may send ``event`` from some state."""
    return frozenset().union(*(t.roles for (_, e), t in TRANSITIONS.items() if e == event))


def staff_senders(event: str) -> frozenset[str]:
    """The staff's roles among :func:`senders`: the access of the staff's route for ``event``
    (a plumber takes their steps on the portal, on their own permits only)."""
    return senders(event) & SIGNED_IN


def allowed_events(state: str) -> list[str]:
    return [event for (source, event) in TRANSITIONS if source == state]


def rules() -> dict:
    """The rulebook's ``[permits]`` table."""
    return city.current().rulebook.section("permits")


def today() -> date:
    return city.current().today()


def _section(rule_id: str, default: str) -> str:
    return city.current().rulebook.rule(rule_id).get("section", default)


# ------------------------------------------------------------------ applying


def fees_for(kind: str) -> dict[str, Decimal]:
    """The fees the rulebook sets for a kind of permit (§ 315-11H), item by item."""
    table = rules().get("fees", {}).get(kind, {})
    return {name: Decimal(str(value)).quantize(Decimal("0.01")) for name, value in table.items()}


def check_plumber(license_number: str | None, expires: date | None, on: date) -> None:
    """§ 315-11B: the work is done by a plumber licensed in Wisconsin, on ``on``.

    Raises:
        LateralError: ``plumber_unlicensed`` (no license number or expiry),
            ``plumber_license_expired``.
    """
    if not (license_number or "").strip() or expires is None:
        raise LateralError("plumber_unlicensed",
                           "the work must be done by a plumber licensed in Wisconsin (§ 315-11B): give the "
                           "plumber's Wisconsin license number and its expiry",
                           {"fields": {"plumber_license": ["the plumber's Wisconsin license number"]}})
    if expires < on:
        raise LateralError("plumber_license_expired",
                           f"the plumber's Wisconsin license {license_number} expired on {expires.isoformat()} "
                           f"(§ 315-11B requires a licensed plumber)",
                           {"plumber_license": license_number, "expired_on": expires.isoformat()})


def apply(actor, **data) -> Permit:
    """Take an application (§ 315-11E(1)): ``parcel_id``, ``kind``, the applicant, the
    owner's consent, the plumber, ``wastes``, ``connection_kind`` and ``connection_size_in``,
    ``inside_limits`` (and ``connected_by_cutoff`` outside them), ``lateral_id``.

    Raises:
        LateralError: ``unknown_parcel``, ``plumber_unlicensed``,
            ``plumber_license_expired``, ``owner_consent_missing``, ``outside_limits``;
            nothing is written.
    """
    on = today()
    parcel = db.session.get(Parcel, data["parcel_id"])
    if parcel is None:
        raise LateralError("unknown_parcel", f"no parcel with id {data['parcel_id']}")
    if data["kind"] not in KINDS:
        raise LateralError("invalid_fields", f"kind must be one of {', '.join(KINDS)}",
                           {"fields": {"kind": [f"one of {', '.join(KINDS)}"]}})
    check_plumber(data.get("plumber_license"), data.get("plumber_license_expires"), on)
    is_owner = data.get("applicant_is_owner", True)
    if not is_owner and not ((data.get("owner_consent_by") or "").strip() and data.get("owner_consent_on")):
        raise LateralError("owner_consent_missing",
                           "the applicant is not the owner: the owner's written consent is required "
                           "(§ 315-11E(1)); give who signed it and when",
                           {"fields": {"owner_consent_by": ["the owner who signed the consent"],
                                       "owner_consent_on": ["the day it was signed"]}})
    inside = data.get("inside_limits", True)
    cutoff = rules().get("outside_limits_connected_by")
    if not inside and not data.get("connected_by_cutoff"):
        day = cutoff.isoformat() if isinstance(cutoff, date) else str(cutoff)
        raise LateralError("outside_limits",
                           f"service is limited to parcels inside the corporate limits unless a connection "
                           f"existed on {day} (§ 315-11E(2))", {"connected_by": day})
    fees = fees_for(data["kind"])
    permit = Permit(
        kind=data["kind"], state="applied", parcel_id=parcel.id, lateral_id=data.get("lateral_id"), applied_on=on,
        applicant_name=data["applicant_name"], applicant_phone=data.get("applicant_phone"),
        applicant_email=data.get("applicant_email"), applicant_is_owner=is_owner,
        owner_consent_by=None if is_owner else data.get("owner_consent_by"),
        owner_consent_on=None if is_owner else data.get("owner_consent_on"),
        plumber_name=data["plumber_name"], plumber_license=data["plumber_license"].strip(),
        plumber_license_expires=data["plumber_license_expires"], wastes=data["wastes"],
        connection_kind=data.get("connection_kind", "gravity"), connection_size_in=data["connection_size_in"],
        work_description=data.get("work_description"), inside_limits=inside,
        connected_by_cutoff=bool(data.get("connected_by_cutoff")) and not inside, surcharged=not inside,
        fees={name: str(value) for name, value in fees.items()}, fee_total=sum(fees.values(), Decimal("0.00")),
        paid=False, created_by_id=getattr(actor, "id", None), plumber_user_id=data.get("plumber_user_id"),
    )
    db.session.add(permit)
    db.session.flush()
    permit.number = f"{on.year}-{permit.id:05d}"
    _history(permit, "apply", None, actor, on)
    db.session.flush()
    audit.record("apply", "permit", permit.id, None, summary(permit), actor)
    events.changed(permit, "apply", actor)
    return permit


# ------------------------------------------------------------------ steps


def check_transition(permit: Permit, event: str, actor) -> Transition:
    """The transition ``event`` makes from the permit's state, if ``actor`` may make it.

    Raises:
        LateralError: ``invalid_transition`` (naming the state and the events it allows)
            or ``forbidden``.
    """
    t = TRANSITIONS.get((permit.state, event))
    if t is None:
        allowed = allowed_events(permit.state)
        raise LateralError(
            "invalid_transition",
            f"permit {permit.number} is {permit.state}; {event!r} is not allowed from there"
            + (f" (allowed: {', '.join(allowed)})" if allowed else " (the permit is closed)"),
            {"state": permit.state, "event": event, "allowed_events": allowed})
    role = getattr(actor, "role", None)
    if role not in t.roles:
        raise LateralError("forbidden", f"{event} needs the role {' or '.join(sorted(t.roles))}",
                           {"your_role": role, "event": event})
    return t


def step(permit: Permit, event: str, actor, **data) -> Permit:
    """Make ``event`` happen to ``permit`` (see :data:`TRANSITIONS`): check, apply the
    step's effect, move the state, date it and audit it. ``data`` holds the step's fields."""
    t = check_transition(permit, event, actor)
    before = summary(permit)
    on = data.get("on") or today()
    if on > today():
        raise LateralError("invalid_date", f"{on.isoformat()} is in the future")
    EFFECTS.get(event, lambda *_: None)(permit, data, actor, on)
    from_state = permit.state
    permit.state = t.target
    _history(permit, event, from_state, actor, on, data.get("note"), _recorded(data))
    db.session.flush()
    audit.record(f"permit_{event}", "permit", permit.id, before, summary(permit), actor)
    events.changed(permit, event, actor)
    return permit


def _recorded(data: dict) -> dict | None:
    keep = {k: (v.isoformat() if isinstance(v, date | datetime) else v) for k, v in data.items()
            if k not in ("note", "on") and v is not None}
    return keep or None


def _history(permit: Permit, event: str, from_state: str | None, actor, on: date, note: str | None = None,
             data: dict | None = None) -> None:
    db.session.add(PermitEvent(permit_id=permit.id, event=event, from_state=from_state, to_state=permit.state,
                               on=on, at=utcnow(), actor_id=getattr(actor, "id", None), note=note, data=data))


def _reason(data: dict, what: str) -> str:
    reason = (data.get("reason") or data.get("note") or "").strip()
    if not reason:
        raise LateralError("reason_required", f"{what} needs the reason in 'reason'",
                           {"fields": {"reason": ["the reason"]}})
    return reason


def _approve(permit: Permit, data: dict, actor, on: date) -> None:
    """§ 315-11E(3): the Commission approves at a meeting (the clerk records its date), or
    the superintendent under the Commission's delegation."""
    if data.get("commission_meeting_on"):
        meeting = data["commission_meeting_on"]
        if meeting > today():
            raise LateralError("invalid_date", f"the Commission's meeting on {meeting.isoformat()} is in the future")
        permit.approval_basis, permit.commission_meeting_on = "commission", meeting
    else:
        if getattr(actor, "role", None) not in DELEGATES:
            raise LateralError("forbidden", "approving without a Commission meeting date is the superintendent's, "
                                            "under the Commission's delegation; give the meeting date",
                               {"your_role": getattr(actor, "role", None), "event": "approve"})
        delegation = city.current().rulebook.municipality.get("commission_delegation", {})
        permit.approval_basis = "delegation"
        permit.delegation = str(data.get("delegation") or delegation.get("resolution") or "")[:200] or None
    permit.approved_on = on


def _reject(permit: Permit, data: dict, actor, on: date) -> None:
    permit.rejected_reason = _reason(data, "rejecting an application (§ 315-11E(3))")


def _pay(permit: Permit, data: dict, actor, on: date) -> None:
    if permit.paid:
        raise LateralError("already_paid", f"permit {permit.number}'s fees were paid on {permit.paid_on}")
    permit.paid, permit.paid_on, permit.receipt_number = True, on, data.get("receipt_number")


def _issue(permit: Permit, data: dict, actor, on: date) -> None:
    """§ 315-11E(3): the permit is issued upon payment of the connection charge."""
    if not permit.paid:
        raise LateralError("not_paid", f"permit {permit.number} is issued once its fees (${permit.fee_total}) "
                                       "are paid (§ 315-11E(3))", {"fee_total": str(permit.fee_total)})
    check_plumber(permit.plumber_license, permit.plumber_license_expires, on)
    permit.issued_on = on
    permit.expires_on = on + timedelta(days=int(rules().get("expires_after_days", 180)))


def _schedule(permit: Permit, data: dict, actor, on: date) -> None:
    """TAP-FROZEN (§ 315-13A(3)): no street opening for a tap while the ground is frozen,
    unless the superintendent overrides it with a reason."""
    work_on = data["work_on"]
    rulebook = city.current().rulebook
    override = (data.get("frozen_override_reason") or "").strip()
    season = FrozenSeason.from_rulebook(rulebook)
    if permit.kind in STREET_OPENING_KINDS and season is not None and season.contains(work_on):
        section = _section("TAP-FROZEN", "§ 315-13A(3)")
        if not override:
            cfg = rulebook.section("frozen_ground")
            raise LateralError("frozen_ground",
                               f"no street opening for a tap while the ground is frozen ({section}): "
                               f"{work_on.isoformat()} is in the season {cfg.get('start')} to {cfg.get('end')}; "
                               "the superintendent may override it with a reason",
                               {"rule_id": "TAP-FROZEN", "section": section, "work_on": work_on.isoformat()})
        if getattr(actor, "role", None) not in OVERRIDERS:
            raise LateralError("forbidden", "opening the street in frozen ground is the superintendent's decision",
                               {"your_role": getattr(actor, "role", None), "event": "schedule"})
        permit.frozen_override_reason = override
    check_plumber(permit.plumber_license, permit.plumber_license_expires, on)
    permit.work_on = work_on


def _request_inspection(permit: Permit, data: dict, actor, on: date) -> None:
    """LATERAL-INSPECT (§ 315-13C(2)): the holder asks for the inspection before backfill,
    giving the earliest time and a contact."""
    # Kept in UTC: SQLite keeps no offset, and reads a stored time back as UTC.
    permit.inspection_earliest = as_utc(data["earliest"])
    permit.inspection_contact = data["contact"]
    permit.inspection_requested_on = on


def _inspected(passed: bool) -> Callable:
    def effect(permit: Permit, data: dict, actor, on: date) -> None:
        corrections = data.get("corrections") or []
        if not passed and not corrections:
            raise LateralError("corrections_required", "a failed inspection lists what to correct, each with its "
                                                       "section and measured value",
                               {"fields": {"corrections": ["at least one correction"]}})
        permit.inspected_on = on
        permit.inspection_id = data.get("inspection_id") or permit.inspection_id
        permit.corrections = None if passed else corrections
    return effect


def _connect(permit: Permit, data: dict, actor, on: date) -> None:
    """CONNECT-SUPERVISED (§ 315-13E): the connection is made under supervision."""
    if permit.kind not in CONNECTING_KINDS:
        raise LateralError("invalid_transition", f"a {permit.kind} permit makes no connection; close it",
                           {"state": permit.state, "event": "connect", "allowed_events": ["close"]})
    permit.connected_on = on


def _close(permit: Permit, data: dict, actor, on: date) -> None:
    if permit.kind in CONNECTING_KINDS and permit.state != "connected":
        raise LateralError("invalid_transition",
                           f"a {permit.kind} permit closes once connected under supervision (§ 315-13E)",
                           {"state": permit.state, "event": "close", "allowed_events": ["connect"]})
    permit.closed_on = on


def _withdraw(permit: Permit, data: dict, actor, on: date) -> None:
    permit.withdrawn_reason = (data.get("reason") or data.get("note") or "").strip() or None


EFFECTS: dict[str, Callable] = {
    "approve": _approve, "reject": _reject, "pay": _pay, "issue": _issue, "schedule": _schedule,
    "request_inspection": _request_inspection, "pass": _inspected(True), "fail": _inspected(False),
    "connect": _connect, "close": _close, "withdraw": _withdraw,
}


def lapse(permit: Permit, on: date, note: str) -> Permit:
    """The daily tick's expiry of a permit whose work was not inspected in time: the
    ``expire`` transition taken by no one's login (the audit row's actor is empty), dated
    ``on`` and said why in ``note``.

    Raises:
        LateralError: ``invalid_transition`` from a state that does not expire.
    """
    t = TRANSITIONS.get((permit.state, "expire"))
    if t is None:
        raise LateralError("invalid_transition", f"permit {permit.number} is {permit.state}; it does not expire",
                           {"state": permit.state, "event": "expire",
                            "allowed_events": allowed_events(permit.state)})
    before, from_state = summary(permit), permit.state
    permit.state = t.target
    _history(permit, "expire", from_state, None, on, note,
             {"expires_on": permit.expires_on.isoformat() if permit.expires_on else None, "by": "daily tick"})
    db.session.flush()
    audit.record("permit_expire", "permit", permit.id, before, summary(permit), None)
    return permit


def link_inspection(permit: Permit, inspection_id: int, actor, flag: str | None = None,
                    on: date | None = None) -> Permit:
    """File an inspection recorded in the field under ``permit`` without a step of its
    workflow (a tap made under an issued permit before its inspection was requested):
    dated in its history, with what to check when the typed number was not the permit's."""
    on = min(on or today(), today())
    permit.inspection_id = inspection_id
    _history(permit, "inspection_linked", permit.state, actor, on, flag, {"inspection_id": inspection_id})
    db.session.flush()
    audit.record("permit_inspection_linked", "permit", permit.id, None,
                 {**summary(permit), "inspection_id": inspection_id, "flag": flag}, actor)
    return permit


def flag(permit: Permit, actor, note: str, **data) -> Permit:
    """Note on the permit something the office must check (a permit number typed wrong on
    site), in its dated history and the audit trail; the state does not change."""
    _history(permit, "flagged", permit.state, actor, today(), note, _recorded(data))
    db.session.flush()
    audit.record("permit_flagged", "permit", permit.id, None, {**summary(permit), "flag": note}, actor)
    return permit


# ------------------------------------------------------------------ the portal's calls


def review(permit: Permit, actor, **data) -> Permit:
    return step(permit, "review", actor, **data)


def approve(permit: Permit, actor, **data) -> Permit:
    return step(permit, "approve", actor, **data)


def reject(permit: Permit, actor, **data) -> Permit:
    return step(permit, "reject", actor, **data)


def pay(permit: Permit, actor, **data) -> Permit:
    return step(permit, "pay", actor, **data)


def issue(permit: Permit, actor, **data) -> Permit:
    return step(permit, "issue", actor, **data)


def schedule(permit: Permit, actor, **data) -> Permit:
    return step(permit, "schedule", actor, **data)


def request_inspection(permit: Permit, actor, **data) -> Permit:
    return step(permit, "request_inspection", actor, **data)


def record_result(permit: Permit, actor, passed: bool, **data) -> Permit:
    return step(permit, "pass" if passed else "fail", actor, **data)


def connect(permit: Permit, actor, **data) -> Permit:
    return step(permit, "connect", actor, **data)


def close(permit: Permit, actor, **data) -> Permit:
    return step(permit, "close", actor, **data)


def expire(permit: Permit, actor, **data) -> Permit:
    return step(permit, "expire", actor, **data)


def withdraw(permit: Permit, actor, **data) -> Permit:
    return step(permit, "withdraw", actor, **data)


def summary(permit: Permit) -> dict:
    """What the audit row keeps of a permit."""
    return {"number": permit.number, "kind": permit.kind, "state": permit.state, "parcel_id": permit.parcel_id,
            "paid": permit.paid, "fee_total": str(permit.fee_total), "plumber_license": permit.plumber_license}


def is_final(permit: Permit) -> bool:
    return permit.state in FINAL_STATES
