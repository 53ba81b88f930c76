"""What staff pages show people: names, not codes; times in the city's zone.

Registered as Jinja filters for every office page:

* ``kind_name``: a notice kind's name as people say it (``HOOKUP-365`` -> "Connect to the
  public sewer"); pages keep the code in a ``title`` tooltip.
* ``city_time`` / ``city_date``: a stored UTC moment as the city's clock and calendar show
  it (the rulebook's ``time_zone``), e.g. ``2026-12-03 16:05 CST``.
* ``plural``: ``1 notice``, ``2 notices``.
"""

from __future__ import annotations

from datetime import date, datetime

from server.core import city
from server.core.models import as_utc
from server.notices.kinds import KINDS


def kind_name(kind: str) -> str:
    """The notice kind's name (its letter's heading, without "Notice to"), else the code."""
    known = KINDS.get(kind)
    if known is None:
        return kind
    title = known.title
    for lead in ("Notice to ", "Notice of "):
        if title.startswith(lead):
            title = title[len(lead):]
            return title[0].upper() + title[1:]
    return title


def city_time(moment: datetime | None) -> str:
    """``moment`` (UTC; naive means UTC) on the city's clock, with the zone's abbreviation."""
    if moment is None:
        return ""
    local = as_utc(moment).astimezone(city.current().time_zone)
    return f"{local:%Y-%m-%d %H:%M} {local.tzname()}"


def city_date(moment: datetime | date | None) -> str:
    """The city's calendar day of ``moment`` (a date is shown as it is)."""
    if moment is None:
        return ""
    if not isinstance(moment, datetime):
        return moment.isoformat()
    return city.current().day_of(moment).isoformat()


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else (many or word + 's')}"


def init_app(app) -> None:
    for f in (kind_name, city_time, city_date, plural):
        app.add_template_filter(f)
