"""The city an app serves: its rulebook, the CRS it measures in, and its calendar.

Made once from the app's settings in the factory (``bind``) and asked for everywhere
else (``current()``), so two apps in one process — two cities — never see each
other's numbers. ``gis/`` stays pure: it gets the rulebook and the measurer from here
as arguments and never reads the environment.

Settings (``server/core/settings.py``): ``LATERAL_RULEBOOK`` (a name in ``gis/rulebooks/``
or a path to a ``.toml``) and ``LATERAL_MEASUREMENT_CRS`` (a projected CRS; unset, the
rulebook's ``[measurement] crs``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

from flask import Flask, current_app

from gis.crs import Measurer
from gis.rulebook import Rulebook, load_rulebook
from server.core import settings
from server.core.models import as_utc, utcnow

EXTENSION = "lateral.city"


@dataclass(frozen=True)
class City:
    """One municipality as the app sees it.

    Attributes:
        rulebook: The city's numbers (rules, deadlines, mail, letterhead).
        measurement_crs: The projected CRS the rules measure distances in.
    """

    rulebook: Rulebook
    measurement_crs: str

    @classmethod
    def named(cls, rulebook_ref: str, measurement_crs: str | None = None) -> City:
        """The city of a rulebook (a name or a ``.toml`` path), measuring in its CRS unless one is given.

        Raises:
            gis.rulebook.RulebookError: no such rulebook, or it is invalid.
            gis.crs.MeasurementCRSError: the CRS is not projected.
        """
        rulebook = load_rulebook(rulebook_ref)
        city = cls(rulebook, measurement_crs or rulebook.measurement_crs)
        city.measurer  # noqa: B018 - an unusable CRS fails at start-up, not at the first save
        return city

    @classmethod
    def from_settings(cls, lateral: settings.Settings) -> City:
        """The city the app's settings name (checked already by ``settings.load``)."""
        return cls.named(lateral.rulebook, lateral.measurement_crs)

    @classmethod
    def from_config(cls, config: Mapping) -> City:
        """The city of ``app.config``-style keys, the settings' defaults for those missing (tests)."""
        return cls.named(config.get("LATERAL_RULEBOOK") or settings.DEFAULT_RULEBOOK,
                         config.get("LATERAL_MEASUREMENT_CRS"))

    @property
    def time_zone(self) -> ZoneInfo:
        """The zone the ordinance's days are counted in (rulebook ``[municipality] time_zone``)."""
        return self.rulebook.time_zone

    @property
    def measurer(self) -> Measurer:
        """Projects into ``measurement_crs`` (pyproj transformers are cached per thread)."""
        return Measurer(self.measurement_crs)

    def day_of(self, moment: datetime) -> date:
        """The city's calendar day of ``moment`` (a naive value is UTC, as SQLite returns it)."""
        return as_utc(moment).astimezone(self.time_zone).date()

    def today(self, now: datetime | None = None) -> date:
        """Today on the city's calendar, not the server's."""
        return self.day_of(now or utcnow())

    def start_of(self, day: date) -> datetime:
        """Midnight at the start of the city's ``day``, in UTC (the columns' zone)."""
        return datetime.combine(day, time.min, tzinfo=self.time_zone).astimezone(UTC)


def bind(app: Flask, city: City | None = None) -> City:
    """Attach the city of the app's settings (or ``city``) to ``app``."""
    city = city or City.from_settings(settings.of(app))
    app.extensions[EXTENSION] = city
    return city


def current() -> City:
    """The city of the app handling this request or CLI command."""
    return current_app.extensions[EXTENSION]
