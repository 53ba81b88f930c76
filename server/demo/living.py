"""The demo city in the middle of its survey: work for today, findings, violations, notices.

``server.demo.seed.seed`` lays out the network and the parcels; this module then
plays the survey's last fourteen months through the real services, in the order they
happened, so every state is one the workflow can reach, every step is audited, and every
deadline comes from the notice clock. Dates count back from the city's today
(``server.core.city``), so a seed made on any day shows deadlines running, passed and coming.

What a newcomer finds (``T`` is today on the city's calendar):

* the demo inspector's Today: five clear-water surveys in one block, a tap inspection, a
  new building sewer, and the reinspections the daily tick asked for when notices went
  overdue;
* a rules run (the network's planted breaks as open violations) and the inspections'
  own violations and clear-water findings;
* notices in every state: drafted (and held, where the owner has no mailing address),
  approved, mailed with the deadline running, mailed and awaiting the return receipt,
  overdue (a reinspection assigned), escalated with a per-day penalty accruing
  (§ 315-11D), appealed to the Utility Commission, and complied through a passing
  reinspection;
* inspections with photos: the real camera photos of ``../shared/realdata/photos/``
  where that folder sits beside the repository (read in place, stored in the blob store
  as an upload would be), else photos drawn with Pillow.

Rows carry the day each thing happened (``mailed_on``, ``delivery_event_on``,
``finished_at``...); the audit trail's own timestamps are the moment of the seed, which
is what it records.
"""

from __future__ import annotations

import hashlib
import io
import tempfile
import uuid as uuidlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from geoalchemy2.shape import to_shape
from sqlalchemy import select

from server.core import city
from server.core.accounts.models import User
from server.core.audit import trail as audit
from server.core.extensions import db
from server.field import inspections
from server.field.assignments import create_assignment
from server.field.checklist_templates import load_templates
from server.field.checklists import content_hash
from server.field.models import Assignment, ChecklistTemplate, Inspection, Photo
from server.field.photos.inspect import inspect_photo
from server.network.models import ClearWaterFinding, Lateral, Parcel
from server.notices import mailing_record as mailings
from server.notices.calendar import federal_no_mail_days
from server.notices.drafts import draft_notices
from server.notices.models import Notice
from server.notices.tick import tick
from server.notices.workflow import apply_event
from server.permits import inspections as permit_inspections
from server.permits import workflow as permit_workflow
from server.permits.models import Permit, PermitEvent
from server.rules import run as rules
from server.rules.models import Violation

#: The real photos used, by item: small JPEGs and one HEIC, all with GPS (PROVENANCE.md).
REAL_PHOTOS = (
    "es__jpg_gps_DSCN0010.jpg",
    "es__jpg_gps_DSCN0021.jpg",
    "es__jpg_gps_DSCN0042.jpg",
    "es__heic_IMG_5195.HEIC",
)
#: Rules whose violations the seed leaves without a notice, for the superintendent to draft.
UNDRAFTED = ("TAP-SPACING-24IN", "TRACER-WIRE")
NAMESPACE = uuidlib.UUID("3150d3a0-5e1d-4c1a-9b1e-a4cad1a00315")


def realdata_photos() -> Path:
    """``../shared/realdata/photos`` beside the repository (read in place, never copied in)."""
    return Path(__file__).resolve().parents[2].parent / "shared" / "realdata" / "photos"


@dataclass
class Living:
    """What the living layer made (ids), for the seed's report and for tests."""

    today: date
    assignments: list[int] = field(default_factory=list)
    inspections: list[int] = field(default_factory=list)
    photos: list[str] = field(default_factory=list)
    real_photos: bool = False
    notices: dict[str, list[int]] = field(default_factory=dict)

    def report(self) -> str:
        states = ", ".join(f"{n} {s}" for s, n in sorted(self.notices_by_state().items()))
        where = "real photos" if self.real_photos else "photos drawn with Pillow"
        return (f"survey under way on {self.today.isoformat()}: {len(self.inspections)} inspections "
                f"({len(self.photos)} {where}), notices {states}")

    def notices_by_state(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for state in db.session.scalars(select(Notice.state)):
            out[state] = out.get(state, 0) + 1
        return out


class _Story:
    """The survey's timeline, played forward through the services."""

    def __init__(self, blobs, progress: Callable[[str], None]):
        self.blobs = blobs
        self.progress = progress
        self.here = city.current()
        self.today = self.here.today()
        self.users = {u.username: u for u in db.session.scalars(select(User))}
        self.inspector = self.users["inspector"]
        self.supt = self.users["superintendent"]
        self.clerk = self.users["clerk"]
        self.living = Living(self.today)
        self.photo_pool: list[tuple[str, str]] = []  # (sha256, filename)
        self.versions = {t.template_id: t.version for t in db.session.scalars(
            select(ChecklistTemplate).order_by(ChecklistTemplate.version))}

    # -------------------------------------------------------------- helpers

    def day(self, days_ago: int) -> date:
        """The working day ``days_ago`` before today, or the last one before it."""
        return _workday(self.today - timedelta(days=days_ago), -1)

    def after(self, d: date | None, days: int) -> date:
        """The first working day at least ``days`` after ``d`` (never after today)."""
        assert d is not None, "a step of the story before its day"
        return min(_workday(d + timedelta(days=days), +1), self.today)

    def at(self, d: date, hour: int = 9, minute: int = 0) -> datetime:
        """``hour``:``minute`` on the city's day ``d``, in UTC."""
        return self.here.start_of(d) + timedelta(hours=hour, minutes=minute)

    def centroid(self, parcel_id: int) -> dict:
        point = to_shape(db.session.get_one(Parcel, parcel_id).geom).centroid
        return {"type": "Point", "coordinates": [round(point.x, 7), round(point.y, 7)]}

    def photo(self, n: int) -> tuple[str, str]:
        sha, name = self.photo_pool[n % len(self.photo_pool)]
        return sha, name

    # -------------------------------------------------------------- photos

    def store_photos(self) -> None:
        folder = realdata_photos()
        paths = [folder / name for name in REAL_PHOTOS if (folder / name).is_file()]
        self.living.real_photos = bool(paths)
        if paths:
            for path in paths:
                self.photo_pool.append((self._store(path, path.name), path.name))
            return
        with tempfile.TemporaryDirectory() as tmp:
            for i, (label, colour) in enumerate(_DRAWN):
                path = Path(tmp) / f"demo-{i + 1}.jpg"
                path.write_bytes(_draw_photo(label, colour, self.today))
                self.photo_pool.append((self._store(path, path.name), path.name))

    def _store(self, path: Path, filename: str) -> str:
        """Into the blob store and the ``photos`` table, as a finished upload leaves it."""
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        if self.blobs is not None:
            self.blobs.put_file(path, sha)
        if db.session.scalar(select(Photo.id).where(Photo.sha256 == sha)) is None:
            info = inspect_photo(path)
            row = Photo(sha256=sha, size=path.stat().st_size, format=info.format, width=info.width,
                        height=info.height, captured_at=info.captured_at, lat=info.lat, lon=info.lon,
                        alt=info.alt, make=info.make, model=info.model, warnings=list(info.warnings or []),
                        upload_metadata={"inspection_uuid": None, "item_id": None, "filename": filename},
                        uploaded_by_id=self.inspector.id)
            db.session.add(row)
            db.session.flush()
            audit.record("store", "photo", row.id, None,
                         {"sha256": sha, "size": row.size, "format": row.format}, self.inspector)
        self.living.photos.append(sha)
        return sha

    # -------------------------------------------------------------- work

    def assign(self, parcel_id: int, template: str, due: date, reason: str) -> Assignment:
        a = create_assignment({"inspector_id": self.inspector.id, "parcel_id": parcel_id, "template_id": template,
                               "due_on": due, "reason": reason}, self.supt)
        self.living.assignments.append(a.id)
        return a

    def inspect(self, label: str, parcel_id: int, template: str, on: date, answers: dict,
                photos: list[tuple[str, str, str]]) -> int:
        """Push one finished inspection as the demo inspector's tablet would."""
        started, finished = self.at(on, 9, 10), self.at(on, 9, 40)
        data: dict[str, Any] = {
                "template_id": template, "template_version": self.versions[template], "parcel_id": parcel_id,
                "location": self.centroid(parcel_id), "started_at": started,
                "finished_at": finished, "answers": answers,
                "photos": [{"sha256": s, "item_id": item, "filename": name} for s, item, name in photos],
                "replaces": None}
        uuid = str(uuidlib.uuid5(NAMESPACE, label))
        digest = content_hash({"kind": "inspection", "data": {**data, "started_at": started.isoformat(),
                                                             "finished_at": finished.isoformat()}})
        inspection, _missing = inspections.create_inspection(uuid, data, digest, self.inspector)
        self.living.inspections.append(inspection.id)
        return inspection.id

    def survey(self, label: str, parcel_id: int, on: date, sources: list[tuple[str, str, str]], n: int) -> int:
        """A clear-water survey: each source is ``(source, discharges_to, connected)``."""
        entries, refs = [], []
        for i, (source, to, connected) in enumerate(sources):
            sha, name = self.photo(n + i)
            test = "dye" if connected == "yes" else "visual"
            entries.append({"source": source, "discharges_to": to, "connected_to_sanitary": connected,
                            "test": test, "test_result": "positive" if connected == "yes" else "not_tested",
                            "photo": [sha]})
            refs.append((sha, f"sources.{i}.photo", name))
        answers = {"access": "granted", "sources": entries}
        return self.inspect(label, parcel_id, "clear-water-survey", on, answers, refs)

    def reinspect(self, label: str, parcel_id: int, on: date, notice: Notice, rule: str, corrected: bool,
                  n: int) -> int:
        sha, name = self.photo(n)
        answers = {"notice_reference": f"Notice {notice.id}, article {notice.article_number}",
                   "violation_rule": rule, "corrected": "yes" if corrected else "no",
                   "evidence_photo": [sha],
                   "notes": "Discharge rerouted to the lawn; cleanout dye test negative." if corrected else None}
        answers = {k: v for k, v in answers.items() if v is not None}
        return self.inspect(label, parcel_id, "reinspection", on, answers, [(sha, "evidence_photo", name)])

    def notice_for(self, parcel_id: int, kind: str | None = None) -> Notice:
        notices = draft_notices(self.supt, parcel_ids=[parcel_id])
        return next(n for n in notices if kind is None or n.kind == kind)

    def mail(self, notices: list[Notice], on: date) -> None:
        for n in notices:
            if n.state == "draft":
                apply_event(n, "approve", self.supt)
                # The history is written today: the superintendent approved on the morning of
                # the mailing (a mailing before its approval is refused).
                n.approved_at = city.current().start_of(on) + timedelta(hours=8)
        mailings.mail_notices([n.id for n in notices], self.clerk, mailed_on=on)

    def deliver(self, notice: Notice, on: date) -> None:
        apply_event(notice, "deliver", self.clerk, on=on, note="return receipt (PS 3811) signed by the owner")


def _workday(d: date, step: int) -> date:
    """``d``, or the nearest day in direction ``step`` with mail and an open office."""
    while d.weekday() >= 5 or d in federal_no_mail_days(d.year):
        d += timedelta(days=step)
    return d


_DRAWN = (("sump pump discharge", (92, 110, 96)), ("downspout at cleanout", (120, 104, 88)),
          ("foundation drain", (96, 96, 116)), ("cleanout, dye test", (110, 120, 104)))


def _draw_photo(label: str, colour: tuple[int, int, int], today: date) -> bytes:
    """A stand-in photo (640 × 480 JPEG) where the real ones are absent."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (640, 480), colour)
    draw = ImageDraw.Draw(image)
    for y in range(0, 480, 24):
        shade = tuple(min(255, c + (y // 24) * 3) for c in colour)
        draw.rectangle([0, y, 640, y + 23], fill=shade)
    draw.ellipse([250, 170, 390, 310], outline=(235, 235, 225), width=8)
    draw.text((24, 24), f"Lateral demo photo: {label}", fill=(250, 250, 240))
    draw.text((24, 440), "Arcadia, WI (synthetic)", fill=(250, 250, 240))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=80)
    return out.getvalue()


#: The permits the demo city shows in each state (beside the two on Today's work).
PERMIT_STATES = ("applied", "under_review", "approved", "rejected", "issued", "scheduled", "inspection_requested",
                 "passed", "failed", "connected", "closed", "expired", "withdrawn")
PERMIT_KINDS = ("new_connection", "lateral_repair", "tap", "excavation", "abandonment")
#: The steps to each state, with the working days ago each was taken.
_PERMIT_PATHS: dict[str, list[tuple[str, int, dict]]] = {
    "applied": [],
    "under_review": [("review", 40, {})],
    "rejected": [("review", 40, {}), ("reject", 38, {"reason": "the main on this street is at capacity until "
                                                               "the relief sewer is built (§ 315-11E(3))"})],
    "withdrawn": [("withdraw", 39, {"reason": "the owner sold the lot"})],
}
_PERMIT_PATHS["approved"] = _PERMIT_PATHS["under_review"] + [("approve", 36, {})]
_PERMIT_PATHS["expired"] = _PERMIT_PATHS["approved"] + [("expire", 2, {"note": "not paid or issued"})]
_PERMIT_PATHS["issued"] = _PERMIT_PATHS["approved"] + [("pay", 35, {"receipt_number": "R-2026-0412"}),
                                                       ("issue", 34, {})]
_PERMIT_PATHS["scheduled"] = _PERMIT_PATHS["issued"] + [("schedule", 30, {"work_on": None})]
_PERMIT_PATHS["inspection_requested"] = _PERMIT_PATHS["scheduled"] + [("request_inspection", 3, {
    "earliest": None, "contact": "the plumber, (608) 555-0133"})]
_PERMIT_PATHS["passed"] = _PERMIT_PATHS["inspection_requested"] + [("pass", 2, {})]
_PERMIT_PATHS["failed"] = _PERMIT_PATHS["inspection_requested"] + [("fail", 2, {"corrections": [{
    "item": "pipe_marked_sdr26", "section": "§ 315-13C(3)", "rule_id": "LATERAL-SDR26", "measured": "SDR 35",
    "note": "The pipe is marked SDR 35; § 315-13C(3) requires ASTM D3034 SDR 26 PVC"}]})]
_PERMIT_PATHS["connected"] = _PERMIT_PATHS["passed"] + [("connect", 1, {})]
_PERMIT_PATHS["closed"] = _PERMIT_PATHS["connected"] + [("close", 1, {})]


def _permit(story: _Story, parcel_id: int, kind: str, state: str, T, work: str | None = None) -> Permit:
    """A permit on the parcel, applied for 42 working days ago and walked to ``state``."""
    parcel = db.session.get_one(Parcel, parcel_id)
    permit = permit_workflow.apply(
        story.clerk, parcel_id=parcel_id, kind=kind, applicant_name=parcel.owner_name or "the owner",
        plumber_name="Trempealeau Plumbing", plumber_license="222614-222",
        plumber_license_expires=date(story.today.year + 2, 6, 30), wastes="domestic sewage",
        connection_kind="gravity", connection_size_in=6.0 if kind != "tap" else 4.0, work_description=work)
    permit.applied_on = T(42)
    for row in db.session.scalars(select(PermitEvent).filter_by(permit_id=permit.id)):
        row.on = permit.applied_on
    for event, days_ago, data in _PERMIT_PATHS[state]:
        on = T(days_ago)
        data = dict(data)
        if "work_on" in data:
            data["work_on"] = story.today if state == "scheduled" else T(days_ago - 25)
            # Stored only when the day falls in the frozen season (TAP-FROZEN, § 315-13A(3)).
            data["frozen_override_reason"] = "a failed building sewer: the owner cannot wait for the thaw"
        if "earliest" in data:
            data["earliest"] = story.at(T(days_ago), 8)
        actor = story.inspector if event in ("pass", "fail", "connect") else story.supt
        permit_workflow.step(permit, event, actor, on=on, **data)
    return permit


def _quiet_block(count: int) -> list[int]:
    """``count`` neighbouring parcels in the middle of the city with a lateral and nothing open."""
    served = set(db.session.scalars(select(Lateral.parcel_id)))
    busy = set(db.session.scalars(select(Violation.parcel_id).where(Violation.parcel_id.is_not(None))))
    busy |= set(db.session.scalars(select(ClearWaterFinding.parcel_id)))
    busy |= set(db.session.scalars(select(Parcel.id).where(Parcel.mailing_street.is_(None))))
    total = db.session.scalar(select(db.func.max(Parcel.id))) or 0
    start = (total // 2) // 20 * 20 + 1
    ok = [p for p in range(start, total + 1) if p in served and p not in busy]
    return ok[:count]


def _date_violations(first_run: datetime) -> None:
    """Date each violation on the survey's timeline, not at the seed's moment: an inspection's
    by the visit that found it (and the one that resolved it), the rules run's by the
    survey's first run, before the first notice went out."""
    for v in db.session.scalars(select(Violation)):
        if v.source == "rules":
            v.opened_at = first_run
            continue
        found = dict((kind, fid) for kind, fid in v.subjects).get("inspection")
        if found is not None:
            v.opened_at = db.session.get_one(Inspection, found).finished_at
        if v.resolved_by_inspection_id is not None:
            v.resolved_at = db.session.get_one(Inspection, v.resolved_by_inspection_id).finished_at
    db.session.flush()


def seed_living(blobs=None, progress: Callable[[str], None] = lambda _msg: None) -> Living:
    """Play the survey forward; everything in the caller's transaction."""
    load_templates()
    story = _Story(blobs, progress)
    T = story.day
    story.store_photos()
    progress(f"  photos: {len(story.photo_pool)} ({'real' if story.living.real_photos else 'drawn'})")

    outcome = rules.run_network(actor=story.supt)
    progress(f"  rules run: {outcome.opened} violations opened")
    open_by_rule: dict[str, list[int]] = {}
    for v in db.session.scalars(select(Violation).where(Violation.status == "open").order_by(Violation.id)):
        if v.parcel_id is not None:
            open_by_rule.setdefault(v.rule_id, []).append(v.parcel_id)

    block = _quiet_block(12)
    cw_overdue, cw_complied, cw_appealed = block[0], block[1], block[2]
    surveys_today, tap_today = block[3:8], block[8]

    # ~18 months ago: a building beside a main and no building sewer (§ 315-11D). Its 365
    # days skip the frozen-ground season (§ 315-13A(3)), so it has lapsed whatever the day.
    hookup = open_by_rule.get("HOOKUP-365", [])
    hook = story.notice_for(hookup[0], "HOOKUP-365")
    story.mail([hook], T(560))
    story.deliver(hook, story.after(hook.mailed_on, 3))

    # Clear-water surveys, each with its photos; a connected source opens a violation.
    a = story.assign(cw_overdue, "clear-water-survey", T(86), "Clear-water survey, block by block")
    story.survey("overdue-survey", a.parcel_id, T(85), [("sump_pump", "sanitary_sewer", "yes"),
                                                         ("roof_downspout", "ground_surface", "no")], 0)
    overdue = story.notice_for(cw_overdue)
    story.mail([overdue], T(82))
    story.deliver(overdue, story.after(overdue.mailed_on, 3))

    a = story.assign(cw_complied, "clear-water-survey", T(70), "Clear-water survey, block by block")
    story.survey("complied-survey", a.parcel_id, T(70), [("roof_downspout", "sanitary_sewer", "yes")], 1)
    complied = story.notice_for(cw_complied)
    story.mail([complied], T(68))
    story.deliver(complied, story.after(complied.mailed_on, 2))

    # A month ago the tick found the connection notice past its 365 days; the
    # superintendent escalated it, which drafts the 10 days' penalty notice.
    assert hook.deadline is not None
    lapsed = hook.deadline + timedelta(days=1)
    tick(on=lapsed)
    escalated_on = story.after(lapsed, 1)
    apply_event(hook, "escalate", story.supt, on=escalated_on,
                note="no building sewer yet; the ten days' penalty notice follows (§ 315-11D)")
    penalty = db.session.scalars(select(Notice).where(Notice.follow_up_of_id == hook.id)).one()
    story.mail([penalty], story.after(escalated_on, 1))
    story.deliver(penalty, story.after(penalty.mailed_on, 2))

    a = story.assign(cw_appealed, "clear-water-survey", T(24), "Clear-water survey, block by block")
    story.survey("appealed-survey", a.parcel_id, T(24), [("foundation_drain", "sanitary_sewer", "yes")], 2)
    appealed = story.notice_for(cw_appealed)
    story.mail([appealed], T(20))
    story.deliver(appealed, story.after(appealed.mailed_on, 3))
    apply_event(appealed, "appeal", story.clerk, on=story.after(appealed.delivery_event_on, 2),
                note="The owner writes that the drain tile was disconnected in 2019 and asks for a dye test "
                     "in their presence.")

    # The network's planted breaks become notices: some mailed, some approved, the rest drafts.
    # Those of two rules wait for the superintendent on the Draft notices page.
    waiting = {pid for rule in UNDRAFTED for pid in open_by_rule.get(rule, [])}
    unnoticed = sorted({pid for pids in open_by_rule.values() for pid in pids} - waiting)
    drafted = draft_notices(story.supt, parcel_ids=unnoticed) if unnoticed else []
    mailable = [n for n in drafted if n.state == "draft"]
    running = [n for n in mailable if n.kind == "GENERAL-VIOLATION"][:2]
    story.mail(running[:1], T(12))
    story.deliver(running[0], story.after(running[0].mailed_on, 3))
    if len(running) > 1:
        story.mail(running[1:], T(4))  # the return receipt is not back yet
    for n in [n for n in mailable if n not in running and n.kind != "HOOKUP-365"][:2]:
        apply_event(n, "approve", story.supt)

    # Ten days ago the downspout was rerouted: the reinspection passes and complies the notice.
    story.reinspect("complied-reinspection", cw_complied, T(10), complied, "CW-DISCONNECT-60", True, 3)

    # Today: the tick marks the lapsed notices overdue, asks for reinspections and accrues penalties.
    tick(on=story.today)
    for parcel_id in surveys_today:
        story.assign(parcel_id, "clear-water-survey", story.today, "Clear-water survey, block by block")
    # The tap today is made under its permit (TAP-PERMIT), scheduled for today.
    _permit(story, tap_today, "tap", "scheduled", T)
    story.assign(tap_today, "tap", story.today, "Tap inspection: the plumber opens the street at 10 am")
    new_lateral = hookup[1] if len(hookup) > 1 else block[9]
    # The new building sewer's inspection before backfill, requested by the plumber under the
    # permit and assigned to the inspector: on Today with the permit's conditions.
    connecting = _permit(story, new_lateral, "new_connection", "scheduled", T,
                         work="New building sewer: the owner is connecting under § 315-11D")
    request = {"earliest": story.at(story.today, 8), "contact": "Trempealeau Plumbing, (608) 555-0133"}
    permit_inspections.request(connecting, story.supt, inspector_id=story.inspector.id, **request)
    if connecting.assignment_id is not None:
        story.living.assignments.append(connecting.assignment_id)
    # A permit in every other state, on quiet parcels of the same block.
    others = _quiet_block(26)[12:] or block
    for i, state in enumerate(PERMIT_STATES):
        kind = "new_connection" if state in ("connected", "closed") else PERMIT_KINDS[i % len(PERMIT_KINDS)]
        _permit(story, others[i % len(others)], kind, state, T)

    _date_violations(story.at(T(401), 8))
    living = story.living
    living.notices = {"overdue": [overdue.id], "complied": [complied.id], "appealed": [appealed.id],
                      "escalated": [hook.id, penalty.id], "mailed": [n.id for n in running]}
    progress(f"  {living.report()}")
    return living
