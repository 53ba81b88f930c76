"""The production settings check behind ``flask --app server doctor``.

Each check looks at one thing a city's server needs and returns a :class:`Finding`
in plain words: what is wrong and what to do about it. The command prints them and
exits non-zero when any is a problem, so it fits a monitoring job or a deploy script.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from flask import Flask
from sqlalchemy import select, text

from server.core import settings
from server.core.dialects import database_clock, database_folder
from server.core.extensions import db
from server.core.models import as_utc, utcnow
from server.network.framing import stray_parcels

# How far the server's clock may stray from the database's before notices get wrong dates.
CLOCK_TOLERANCE = timedelta(minutes=5)
PROBE_KEY = "doctor/write-probe"
# Where server.field.api.photos keeps the blob store and the tus server (services do not import the API).
BLOBS, TUS = "lateral_blobs", "lateral_tus"


@dataclass(frozen=True)
class Finding:
    """One check's outcome: ``ok`` False is a problem; ``message`` says it plainly."""

    check: str
    ok: bool
    message: str


def _ok(check: str, message: str) -> Finding:
    return Finding(check, True, message)


def _problem(check: str, message: str) -> Finding:
    return Finding(check, False, message)


def check_settings(app: Flask) -> list[Finding]:
    """The checks the app starts with (``settings.problems``), as a production server passes them.

    A weak secret key is its own finding: the app starts with one when DEBUG or TESTING is
    on, and a city's server has neither. The rulebook is left to ``check_rulebook``, which
    also asks for every deadline a letter cites.
    """
    lateral = settings.of(app)
    reason = settings.weak_secret(lateral.secret_key)
    secret = (_problem("secret key", f"SECRET_KEY {reason}.") if reason
              else _ok("secret key", "SECRET_KEY is set and long enough."))
    others = [_problem("settings", f"{p}.") for p in settings.problems(lateral, production=False)
              if p.name != "LATERAL_RULEBOOK"]
    return [secret, *(others or [_ok("settings", "Every setting reads and passes its checks.")])]


def check_secure_cookies(app: Flask) -> Finding:
    lateral = settings.of(app)
    if not lateral.session_cookie_secure:
        return _problem("secure cookies", "The log-in cookie is not marked Secure, so a browser would also "
                        "send it over plain HTTP. Serve Lateral over HTTPS only and set "
                        "SESSION_COOKIE_SECURE=1 (docs/deploy.md).")
    if not lateral.behind_proxy:
        return _ok("secure cookies", "The log-in cookie is Secure. (LATERAL_BEHIND_PROXY is off: fine when "
                   "gunicorn itself terminates TLS; behind nginx set it to 1 so links are https://.)")
    return _ok("secure cookies", "The log-in cookie is Secure and links follow the proxy's https scheme.")


def check_database(app: Flask) -> list[Finding]:
    """Reachable, and at the newest migration of this release."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    try:
        connection = db.session.connection()
        connection.execute(text("SELECT 1"))
        current = set(MigrationContext.configure(connection).get_current_heads())
    except Exception as exc:  # noqa: BLE001 - any failure to reach it is the finding
        db.session.rollback()
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        return [_problem("database", f"The database cannot be reached ({db.engine.url.render_as_string()}): "
                         f"{reason}")]
    heads = set(ScriptDirectory(app.extensions["migrate"].directory).get_heads())  # as create_app set it
    reachable = _ok("database", f"The {db.engine.dialect.name} database answers.")
    if not current:
        return [reachable, _problem("migrations", "The database has no tables of Lateral's yet: run "
                                    "`flask --app server db upgrade`.")]
    if current != heads:
        return [reachable, _problem("migrations", f"The database is at migration {', '.join(sorted(current))} "
                                    f"but this release needs {', '.join(sorted(heads))}: back it up, then run "
                                    "`flask --app server db upgrade` (docs/deploy.md, Upgrading).")]
    return [reachable, _ok("migrations", f"The database is at the newest migration ({', '.join(sorted(heads))}).")]


def check_blob_store(app: Flask) -> Finding:
    """Write a small object and read it back (the same key each run: nothing piles up)."""
    store = app.extensions[BLOBS]
    token = uuid.uuid4().hex.encode()
    try:
        store.put_bytes(PROBE_KEY, token)
        with store.open_key(PROBE_KEY) as f:
            read_back = f.read()
    except Exception as exc:  # noqa: BLE001 - a refused write is the finding
        return _problem("blob store", f"Photos cannot be stored: writing to the blob store failed "
                        f"({type(exc).__name__}: {exc}).")
    if read_back != token:
        return _problem("blob store", "The blob store did not give back what was just written to it.")
    return _ok("blob store", f"The blob store ({type(store).__name__}) takes and gives back a file.")


def check_upload_staging(app: Flask) -> Finding:
    """The tus staging folder, where partial photo uploads wait, must be writable."""
    staging = Path(app.extensions[TUS].staging_dir)
    try:
        staging.mkdir(parents=True, exist_ok=True)
        probe = staging / f".doctor-{uuid.uuid4().hex}"
        probe.write_bytes(b"probe")
        probe.unlink()
    except OSError as exc:
        return _problem("upload staging", f"Photo uploads cannot start: {staging} is not writable ({exc.strerror}).")
    return _ok("upload staging", f"Partial uploads can be written to {staging}.")


def check_rulebook(app: Flask) -> Finding:
    """The rulebook loads, names a valid time zone and has every deadline a letter cites."""
    from gis.rulebook import RulebookError, load_rulebook
    from server.notices.kinds import KINDS

    name = settings.of(app).rulebook
    cited = {k.deadline_rule for k in KINDS.values()} | {"APPEAL-10"}
    try:
        rulebook = load_rulebook(name)
        for rule in sorted(cited):
            rulebook.deadline(rule)
    except RulebookError as exc:
        return _problem("rulebook", f"The rulebook does not validate: {exc}.")
    return _ok("rulebook", f"Rulebook {rulebook.name!r} ({rulebook.path}) loads; the city's time zone is "
               f"{rulebook.time_zone.key}.")


def _is_placeholder(value) -> bool:
    return not str(value or "").strip() or "placeholder" in str(value).lower()


def rulebook_choices_missing(rulebook) -> list[str]:
    """The choices the law leaves to the city that its rulebook has not made expressly."""
    from server.notices.letters.texts import delegation_placeholder

    missing = []
    delegation = delegation_placeholder(rulebook.municipality)
    if delegation:
        missing.append(f"{delegation}: no notice is approved or mailed until the Commission's real resolution is set")
    appeals = rulebook.section("appeals")
    if appeals.get("upheld_period") not in ("notice_period", "remaining_days", "decision"):
        missing.append("[appeals] upheld_period: how long an owner has after an upheld notice is the Commission's "
                       "choice (\"notice_period\" or \"remaining_days\"); § 315-21H does not say")
    if _is_placeholder(appeals.get("upheld_period_resolution")):
        missing.append("[appeals] upheld_period_resolution: name the Commission's resolution that chose "
                       "upheld_period (the decision letter prints it)")
    return missing


def check_rulebook_choices(app: Flask) -> Finding:
    """The rulebook makes expressly each choice the ordinance leaves to the city."""
    from gis.rulebook import RulebookError, load_rulebook

    try:
        rulebook = load_rulebook(settings.of(app).rulebook)
    except RulebookError:
        return _ok("rulebook choices", "Not checked: the rulebook does not load (see the rulebook check).")
    missing = rulebook_choices_missing(rulebook)
    if missing:
        return _problem("rulebook choices", "The rulebook has not made these choices: " + "; ".join(missing) + ".")
    return _ok("rulebook choices", "The rulebook states each choice the ordinance leaves to the city.")


def check_clock(app: Flask, now: Callable[[], datetime] = utcnow) -> Finding:
    """The server's clock against the database's, and against the newest audit row.

    Deadlines run on the city's calendar: a clock hours off, or behind what the trail
    already recorded, dates letters wrongly.
    """
    from server.core.audit.models import AuditEvent

    here = now()
    try:
        theirs = database_clock(db.session)  # None: SQLite's clock is this host's
        if theirs is not None:
            theirs = as_utc(theirs)
            if abs(theirs - here) > CLOCK_TOLERANCE:
                return _problem("clock", f"This server's clock ({here:%Y-%m-%d %H:%M} UTC) and the database "
                                f"server's ({theirs:%Y-%m-%d %H:%M} UTC) differ by more than "
                                f"{CLOCK_TOLERANCE.seconds // 60} minutes: run NTP (systemd-timesyncd or chrony) "
                                "on both.")
        newest = db.session.scalar(select(AuditEvent.at).order_by(AuditEvent.at.desc()).limit(1))
    except Exception:  # noqa: BLE001 - reported by the database check
        db.session.rollback()
        return _ok("clock", "Not compared with the database (unreachable or not migrated).")
    if newest is not None and as_utc(newest) - here > CLOCK_TOLERANCE:
        return _problem("clock", f"This server's clock ({here:%Y-%m-%d %H:%M} UTC) is behind the newest audit "
                        f"entry ({as_utc(newest):%Y-%m-%d %H:%M} UTC): the clock was set back or is wrong. "
                        "Run NTP (systemd-timesyncd or chrony).")
    return _ok("clock", f"The clock reads {here:%Y-%m-%d %H:%M} UTC and agrees with the database.")


def check_stray_parcels(app: Flask) -> Finding:
    """Parcels far from the rest of the city: a keyed-in coordinate gone wrong, most often.

    Maps frame the city's dense core, so a stray does not blank them; but it is still a
    parcel nobody will find on the map, and the GIS staff should move or delete it.
    """
    try:
        strays = stray_parcels()
    except Exception:  # noqa: BLE001 - reported by the database check
        db.session.rollback()
        return _ok("stray parcels", "Not looked for (the database is unreachable or not migrated).")
    if strays:
        shown = ", ".join(strays[:10]) + (f" and {len(strays) - 10} more" if len(strays) > 10 else "")
        return _problem("stray parcels", f"{len(strays)} parcel{'s lie' if len(strays) > 1 else ' lies'} far from "
                        f"the rest of the city: {shown}. Check their boundaries in the GIS (a coordinate "
                        "keyed wrong, or a file in another projection) and fix or delete them.")
    return _ok("stray parcels", "Every parcel lies with the rest of the city.")


def check_job(app: Flask, job: str, now: Callable[[], datetime] = utcnow) -> Finding:
    """A scheduled job finished within ``LATERAL_DOCTOR_JOB_MAX_AGE_HOURS``."""
    from server.core import jobs

    max_age = timedelta(hours=settings.of(app).doctor_job_max_age_hours)
    try:
        last = jobs.last_run(job)
    except Exception:  # noqa: BLE001 - reported by the database check
        db.session.rollback()
        return _problem(job, f"Cannot tell when the {job} last ran: the database is unreachable or not migrated.")
    hours = f"{max_age.total_seconds() / 3600:g} hours"
    if last is None:
        hint = "lateral-backup.timer" if job == jobs.BACKUP else "its systemd timer"
        return _problem(job, f"No {job} recorded: `flask --app server {job}` has never finished. Enable {hint} "
                        "(docs/deploy.md).")
    if now() - last > max_age:
        return _problem(job, f"The last {job} finished {last:%Y-%m-%d %H:%M} UTC, more than {hours} ago: "
                        "check its timer (systemctl list-timers; journalctl -u lateral-*).")
    return _ok(job, f"The last {job} finished {last:%Y-%m-%d %H:%M} UTC.")


def check_job_queue(app: Flask) -> Finding:
    """Jobs are waiting and no worker has said it is alive lately (issue #35)."""
    import time

    from server.core.queue import models as queue_models
    from server.core.queue import service as queue

    q = queue.queue()
    if q.immediate:
        return _ok("job queue", "Jobs run inside the requests that ask (LATERAL_QUEUE_IMMEDIATE): no worker needed.")
    try:
        waiting = db.session.scalar(db.select(db.func.count(queue_models.Job.id))
                                    .where(queue_models.Job.state == "queued")) or 0
        beat = queue.worker_heartbeat()
    except Exception:  # noqa: BLE001 - the database check or the queue's store says why
        db.session.rollback()
        return _problem("job queue", "Cannot read the job queue: the database is unreachable or not migrated, "
                        "or the queue's store (LATERAL_QUEUE_URI) is away.")
    alive = beat is not None and time.time() - beat < queue.HEARTBEAT_STALE_SECONDS
    if alive:
        return _ok("job queue", f"A worker is running; {waiting} jobs waiting.")
    if waiting:
        return _problem("job queue", f"{waiting} jobs are waiting and no worker is running: start "
                        "`flask --app server jobs worker` (lateral-worker.service, docs/deploy.md).")
    return _problem("job queue", "No job worker is running: long work (the rules run) would wait for ever. "
                    "Start `flask --app server jobs worker` (lateral-worker.service, docs/deploy.md).")


def _local_paths(app: Flask) -> dict[str, Path]:
    """Folders on this host that Lateral writes to: instance, blobs (if local), staging, SQLite."""
    paths = {"instance folder": Path(app.instance_path), "upload staging": Path(app.extensions[TUS].staging_dir)}
    root = getattr(app.extensions[BLOBS], "root", None)
    if root is not None:
        paths["blob store"] = Path(root)
    database = database_folder(db.engine)
    if database is not None:
        paths["database"] = database
    return paths


def check_disk_space(app: Flask) -> list[Finding]:
    """Free space where Lateral writes, against ``LATERAL_DOCTOR_MIN_FREE_MB``."""
    minimum = settings.of(app).doctor_min_free_mb * 1024 * 1024
    findings = []
    seen: set[int] = set()
    for what, path in _local_paths(app).items():
        existing = next((p for p in (path, *path.parents) if p.exists()), Path("/"))
        device = existing.stat().st_dev
        if device in seen:
            continue
        seen.add(device)
        free = shutil.disk_usage(existing).free
        message = f"{free / 2**30:.1f} GiB free for the {what} ({existing})"
        if free < minimum:
            findings.append(_problem("disk space", f"Only {message}; at least {minimum / 2**30:.1f} GiB are "
                                     "wanted (LATERAL_DOCTOR_MIN_FREE_MB). Photos and backups will fail when it "
                                     "fills."))
        else:
            findings.append(_ok("disk space", message[0].upper() + message[1:] + "."))
    return findings


def _private_paths(app: Flask) -> dict[str, tuple[Path, int]]:
    """What only Lateral's account may read, and the mode bits nobody else may have."""
    paths = {name: (path, 0o077) for name, path in _local_paths(app).items() if name != "database"}
    database = db.engine.url.database if db.engine.dialect.name == "sqlite" else None
    if database and database != ":memory:":
        paths["database file"] = (Path(database), 0o077)
    return paths


def check_file_modes(app: Flask) -> Finding:
    """The database, photos, uploads and instance files: 0600 files in 0700 folders.

    Any local account could otherwise read password hashes, owners' details and photos.
    """
    loose = []
    for name, (path, forbidden) in _private_paths(app).items():
        try:
            mode = path.stat().st_mode & 0o777
        except OSError:
            continue  # absent: the checks of that place say so
        if mode & forbidden:
            loose.append(f"{name} {path} is {mode:04o}")
    if loose:
        return _problem("file modes", "Other accounts on this host can read what Lateral keeps: "
                        + "; ".join(loose) + ". Make folders 0700 and files 0600 (chmod -R go-rwx), "
                        "and run the units with UMask=0027 (deploy/systemd).")
    return _ok("file modes", "The database, photos and uploads are readable by Lateral's account only.")


def check_published_logins(app: Flask) -> Finding:
    """No login may keep a published password (the demo city's) outside a demo database."""
    from server.core.accounts.service import is_demo_database, published_logins

    try:
        names, demo = published_logins(), is_demo_database()
    except Exception:  # noqa: BLE001 - an unmigrated database is the migrations check's finding
        db.session.rollback()
        return _ok("published logins", "Not checked: the database has no users table yet.")
    if not names:
        return _ok("published logins", "No login has a published password.")
    if demo:
        return _ok("published logins", f"The demo city's logins ({', '.join(names)}) have the published "
                   "password; fine for the demo, never for a city's data.")
    return _problem("published logins", f"The logins {', '.join(names)} still have the published demo password "
                    "on a database that is not the demo's: anyone who read the README can log in. Give each a "
                    "new password (`flask --app server users set-password NAME --password-stdin`) or disable it.")


def run_checks(app: Flask, now: Callable[[], datetime] = utcnow) -> list[Finding]:
    """Every check, in the order a city's IT would fix them; call inside an app context."""
    from server.core import jobs

    findings = [*check_settings(app), check_secure_cookies(app), *check_database(app),
                check_published_logins(app), check_file_modes(app), check_blob_store(app),
                check_upload_staging(app), check_rulebook(app), check_rulebook_choices(app),
                check_clock(app, now), check_stray_parcels(app)]
    findings += [check_job(app, job, now) for job in (jobs.NOTICES_TICK, jobs.BACKUP)]
    findings.append(check_job_queue(app))
    findings += check_disk_space(app)
    return findings
