"""``flask --app server calendar …`` and ``flask --app server notices …``.

The same service calls as the API, each command that writes one transaction
(``server.core.transaction``, as a request is). Commands that act for a person take
``--as USERNAME`` and are held to that user's role; ``tick`` is the daily job and acts
as the system.
"""

from __future__ import annotations

import functools
from datetime import date
from pathlib import Path

import click
from sqlalchemy import select

from gis.rulebook import RulebookError
from server.core.audit.anchors import anchor
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.transaction import transaction
from server.notices.kinds import CLEAR_WATER_KINDS
from server.notices.letters.documents import NOTICE_KINDS
from server.notices.models import DECISIONS, DELIVERY_EVENTS, SERVICE_STEPS, STATES

DATE = click.DateTime(formats=["%Y-%m-%d"])


def _day(value) -> date | None:
    return value.date() if value is not None else None


def _user(username: str):
    from server.core.accounts.models import User

    user = db.session.scalar(select(User).where(User.username == username, User.active.is_(True)))
    if user is None:
        raise click.ClickException(f"no active user {username!r}")
    return user


def says_api_errors(command):
    """A LateralError from the service ends the command as the CLI's error, naming its code.

    Goes above ``@transaction``, which has rolled back by the time the error gets here.
    """

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except LateralError as exc:
            raise click.ClickException(f"{exc.code}: {exc.message}") from None

    return wrapper


def _line(n) -> str:
    deadline = n.deadline.isoformat() if n.deadline else "-"
    extra = f"  HELD: {n.held_reason}" if n.state == "held" else ""
    return (f"{n.id:>6}  {n.state:<10} {n.kind:<18} parcel {n.parcel_number:<16} "
            f"article {n.article_number or '-':<22} deadline {deadline}{extra}")


as_user = click.option("--as", "username", required=True, metavar="USERNAME", help="Act as this user (role checked).")


@click.group("calendar", help="The legal calendar (Wis. Stat. § 990.001(4)).")
def calendar_cli():
    pass


@calendar_cli.command("deadline")
@click.argument("rule")
@click.argument("served", type=DATE)
def deadline_command(rule, served):
    """Last day of RULE's period when served on SERVED (YYYY-MM-DD), with the steps."""
    from server.notices.election_calendar import deadline

    try:
        d = deadline(rule, served.date())
    except (RulebookError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    except LateralError as exc:
        raise click.ClickException(f"{exc.code}: {exc.message}") from None
    click.echo(f"{d.rule_id} ({d.section}, {d.days} days) served {d.served.isoformat()}: "
               f"deadline {d.date.isoformat()}")
    for step in d.steps:
        click.echo(f"  {step}")


@calendar_cli.command("special-election")
@as_user
@click.argument("day", type=DATE)
@click.argument("name")
@says_api_errors
@transaction
def special_election_command(username, day, name):
    """Record a special election on DAY (a legal holiday, § 995.20); NAME says which."""
    from server.notices.election_calendar import record_special_election

    entry = record_special_election(day.date(), name, _user(username))
    click.echo(f"special election {entry.day.isoformat()} recorded: {entry.name}")


@calendar_cli.command("checked-through")
@as_user
@click.argument("day", type=DATE)
@says_api_errors
@transaction
def checked_through_command(username, day):
    """Record that every special election on or before DAY is recorded."""
    from server.notices.election_calendar import record_checked_through

    entry = record_checked_through(day.date(), _user(username))
    click.echo(f"election calendar checked through {entry.day.isoformat()}")


@calendar_cli.command("show")
def show_command():
    """Special elections recorded and the day the calendar is checked through."""
    from server.notices.election_calendar import describe

    for line in describe():
        click.echo(line)


@click.group("notices", help="Notices to owners: draft, approve, mail, receipts, the daily tick.")
def notices_cli():
    pass


@notices_cli.command("draft")
@as_user
@click.option("--parcel", "parcel_ids", type=int, multiple=True, help="Only this parcel id (repeatable).")
@click.option("--kind", "kinds", type=click.Choice(NOTICE_KINDS), multiple=True, help="Only this kind.")
@click.option("--clear-water-kind", type=click.Choice(CLEAR_WATER_KINDS), default=CLEAR_WATER_KINDS[0],
              show_default=True)
@says_api_errors
@transaction
def draft_command(username, parcel_ids, kinds, clear_water_kind):
    """Draft notices from open violations (one per parcel and kind; never twice)."""
    from server.notices.drafts import draft_notices

    notices = draft_notices(_user(username), list(parcel_ids) or None, list(kinds) or None, clear_water_kind)
    for n in notices:
        click.echo(_line(n))
    click.echo(f"{len(notices)} notices drafted or extended")


@notices_cli.command("approve")
@as_user
@click.argument("notice_ids", type=int, nargs=-1, required=True)
@says_api_errors
@transaction
def approve_command(username, notice_ids):
    """Approve draft notices for mailing (superintendent)."""
    from server.notices.record import get_notice
    from server.notices.workflow import apply_event

    user = _user(username)
    for notice_id in notice_ids:
        click.echo(_line(apply_event(get_notice(notice_id), "approve", user)))


@notices_cli.command("print")
@as_user
@click.argument("notice_ids", type=int, nargs=-1, required=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Write the PDFs here.")
@says_api_errors
@transaction
def print_command(username, notice_ids, out):
    """Print approved notices as one batch (clerk, admin): article numbers, letters, mailing book.
    Nothing is mailed until the batch is recorded (``flask notices record``)."""
    from server.notices.mailing import batch_notices, print_notices

    batch = print_notices(list(notice_ids), _user(username))
    for n in batch_notices(batch):
        click.echo(_line(n))
    click.echo(f"mailing {batch.id}: {batch.pieces} letters printed on {batch.printed_on.isoformat()}, "
               f"letters sha256 {batch.letters_sha256}; record it once mailed")
    if out:
        out.mkdir(parents=True, exist_ok=True)
        (out / f"mailing-{batch.id}-letters.pdf").write_bytes(batch.letters_pdf)
        (out / f"mailing-{batch.id}-book.pdf").write_bytes(batch.mailing_book_pdf)
        click.echo(f"wrote {out}/mailing-{batch.id}-letters.pdf and -book.pdf")


@notices_cli.command("record")
@as_user
@click.argument("batch_id", type=int)
@click.option("--count", type=int, required=True, help="The letters you took to the post office, counted.")
@click.option("--date", "mailed_on", type=DATE, help="Mailing date (default today).")
@says_api_errors
@transaction
def record_command(username, batch_id, count, mailed_on):
    """Record a printed batch as mailed (clerk, admin): the notices are mailed and their clocks start."""
    from server.notices.mailing import batch_notices, get_batch
    from server.notices.mailing_record import record_mailing

    batch = record_mailing(get_batch(batch_id), _user(username), _day(mailed_on), count)
    for n in batch_notices(batch):
        click.echo(_line(n))
    click.echo(f"mailing {batch.id}: {batch.pieces} pieces mailed on {batch.mailed_on.isoformat()}")


@notices_cli.command("deliver")
@as_user
@click.argument("notice_id", type=int)
@click.option("--event", type=click.Choice(DELIVERY_EVENTS), default="delivered", show_default=True,
              help="What the return receipt or the returned envelope says.")
@click.option("--on", type=DATE, help="Date of delivery or return (default today).")
@says_api_errors
@transaction
def deliver_command(username, notice_id, event, on):
    """Record the return receipt of a mailed notice (clerk, admin); starts the clock."""
    from server.notices.record import get_notice
    from server.notices.workflow import apply_event

    verb = {"delivered": "deliver", "refused": "refuse", "unclaimed": "unclaimed"}[event]
    notice = apply_event(get_notice(notice_id), verb, _user(username), on=_day(on))
    click.echo(_line(notice))
    for step in notice.deadline_steps or []:
        click.echo(f"  {step}")


@notices_cli.command("event")
@as_user
@click.argument("notice_id", type=int)
@click.argument("event", type=click.Choice(["withdraw", "release", "comply", "escalate", "appeal", "decide",
                                            "substitute"]))
@click.option("--on", type=DATE, help="The day it happened (default today); decide: the meeting date.")
@click.option("--note", default=None, help="appeal: the facts it sets forth; decide: the terms.")
@click.option("--decision", type=click.Choice(DECISIONS), help="For decide.")
@click.option("--days", type=int, help="decide: the days to comply the decision sets.")
@click.option("--late-reason", default=None, help="appeal after its 10 days: why it is accepted (superintendent).")
@click.option("--step", type=click.Choice(SERVICE_STEPS), help="substitute: the step taken.")
@says_api_errors
@transaction
def event_command(username, notice_id, event, on, note, decision, days, late_reason, step):
    """Any other step of the workflow: withdraw, release, comply, escalate, appeal, decide, substitute."""
    from server.notices.record import get_notice
    from server.notices.workflow import apply_event

    data = {k: v for k, v in (("on", _day(on)), ("note", note), ("decision", decision), ("days", days),
                              ("late_reason", late_reason), ("step", step)) if v is not None}
    click.echo(_line(apply_event(get_notice(notice_id), event, _user(username), **data)))


@notices_cli.command("tick")
@click.option("--on", type=DATE, help="Run as of this day (default today).")
@says_api_errors
def tick_command(on):
    """The daily job: complied, overdue (with a reinspection assignment), escalated, penalties;
    and permits whose work was not inspected in time expired, their holders told."""
    from server.permits import expiry

    report = _tick(on)
    for key, ids in report.items():
        click.echo(f"{key}: {len(ids)}" + (f" ({', '.join(map(str, ids))})" if ids else ""))
    # Told once the expiry is committed: no message of a change rolled back.
    click.echo(f"permit_holders_told: {expiry.tell_holders(report['permits_expired'])}")


@transaction
def _tick(on) -> dict[str, list[int]]:
    from server.core import jobs
    from server.notices.tick import check_not_future, tick
    from server.permits import expiry

    check_not_future(_day(on))
    # The audit chain's head as committed so far, written down outside the database daily.
    anchor(db.session, "tick")
    report = tick(_day(on))
    report["permits_expired"] = expiry.expire_lapsed(_day(on))
    day = _day(on)
    jobs.record_run(jobs.NOTICES_TICK, {"on": day.isoformat() if day else None,
                                        **{key: len(ids) for key, ids in report.items()}})
    return report


@notices_cli.command("list")
@click.option("--state", type=click.Choice(STATES))
@click.option("--kind", type=click.Choice(NOTICE_KINDS))
@click.option("--parcel", "parcel_id", type=int)
@click.option("--limit", default=1000, show_default=True)
def list_command(state, kind, parcel_id, limit):
    """Notices in id order; held ones with the reason."""
    from server.notices.record import list_notices

    for n in list_notices(state=state, kind=kind, parcel_id=parcel_id, limit=limit):
        click.echo(_line(n))


def init_app(app) -> None:
    app.cli.add_command(calendar_cli)
    app.cli.add_command(notices_cli)
