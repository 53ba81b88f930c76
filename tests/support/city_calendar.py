"""Today on the city's calendar, as the server counts days (``notices.today()``).

For tests that build dates outside an app: between midnight UTC and midnight in
Arcadia the server's UTC day is already tomorrow there, and a letter "mailed today"
by the UTC day would be refused as mailed in the future.
"""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from gis.rulebook import load_rulebook


@functools.cache
def _zone() -> ZoneInfo:
    return load_rulebook("arcadia").time_zone  # Arcadia, the rulebook the test apps are made with


def city_today() -> date:
    return city_day(datetime.now(UTC))


def city_day(moment: datetime) -> date:
    """The city's day of an aware ``moment`` (``notices.city_day``)."""
    return moment.astimezone(_zone()).date()
