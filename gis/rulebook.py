"""The rulebook: one municipality's numbers for the ordinance rules Lateral enforces.

A rulebook is a TOML file (``gis/rulebooks/arcadia.toml`` is Arcadia's). Code asks
the rulebook for a rule's parameters instead of hard-coding them, so another city
configures its own numbers rather than forking the code. Nothing here picks a city:
every function is given its rulebook (the app's comes from ``server/core/city.py``).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

RULEBOOK_DIR = Path(__file__).parent / "rulebooks"


class RulebookError(ValueError):
    """A rulebook file is missing, unreadable or lacks a required entry."""


@dataclass(frozen=True)
class Rulebook:
    """Parsed rulebook; sections are plain dicts straight from the TOML file."""

    name: str
    path: Path
    data: dict[str, Any] = field(repr=False)

    @property
    def municipality(self) -> dict[str, Any]:
        table: dict[str, Any] = self.data.get("municipality", {})
        return table

    @property
    def time_zone(self) -> ZoneInfo:
        """The city's zone (``[municipality] time_zone``, an IANA name): the calendar on
        which a notice is mailed, a violation observed and a deadline falls due."""
        name = self.municipality.get("time_zone")
        if not isinstance(name, str) or not name:
            raise RulebookError(f"rulebook {self.name!r}: [municipality] time_zone is required "
                                "(an IANA zone name such as America/Chicago)")
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            raise RulebookError(f"rulebook {self.name!r}: [municipality] time_zone {name!r} "
                                f"is not a known IANA time zone") from None

    @property
    def measurement_crs(self) -> str:
        crs: str = self.data.get("measurement", {}).get("crs", "EPSG:3071")
        return crs

    def rule(self, rule_id: str) -> dict[str, Any]:
        """Parameters of one field rule (empty dict where the file sets none)."""
        return dict(self.data.get("rules", {}).get(rule_id, {}))

    def deadline(self, rule_id: str) -> dict[str, Any]:
        """Period and section of one notice kind; unknown kinds are an error."""
        try:
            return dict(self.data["deadlines"][rule_id])
        except KeyError:
            raise RulebookError(f"rulebook {self.name!r} has no deadline for {rule_id!r}") from None

    def section(self, name: str) -> dict[str, Any]:
        """Any other top-level table, e.g. ``calendar`` or ``mail``."""
        return dict(self.data.get(name, {}))


def load_rulebook(name_or_path: str | os.PathLike[str]) -> Rulebook:
    """Load a rulebook by municipality name (file in ``gis/rulebooks``) or by path.

    Args:
        name_or_path: ``"arcadia"`` or a path to a ``.toml`` file; required, so no
            caller measures with another city's numbers by leaving it out. The app's city
            (``server/core/city.py``) passes the one its settings name; this function
            reads no environment.

    Raises:
        RulebookError: no such rulebook, or it is invalid.
    """
    if not os.fspath(name_or_path):
        raise RulebookError("name a rulebook: a name in gis/rulebooks/ or a path to a .toml file")
    return _load(os.fspath(name_or_path))


@lru_cache(maxsize=16)
def _load(ref: str) -> Rulebook:
    path = Path(ref)
    if path.suffix != ".toml":
        path = RULEBOOK_DIR / f"{ref}.toml"
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise RulebookError(f"no rulebook at {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RulebookError(f"rulebook {path} is not valid TOML: {exc}") from None
    rulebook = Rulebook(name=path.stem, path=path, data=data)
    rulebook.time_zone  # noqa: B018 - an unknown zone fails here, at load, not at the first mailing
    return rulebook


def _month_day(value: object) -> tuple[int, int]:
    """``"12-01"`` -> (12, 1)."""
    month, day = (int(x) for x in str(value).split("-"))
    return month, day


@dataclass(frozen=True)
class FrozenSeason:
    """The months the ground is frozen, when no street may be opened for a tap
    (§ 315-13A(3)): from ``start`` through ``end`` (month, day), across the new year.

    A deadline whose work needs a street opening does not run while the ground is
    frozen: the days of the period falling in the season are not counted (the period
    is extended past it), and the last day is then counted under § 990.001(4).
    """

    start: tuple[int, int]
    end: tuple[int, int]

    @classmethod
    def from_rulebook(cls, rulebook: Rulebook) -> FrozenSeason | None:
        cfg = rulebook.section("frozen_ground")
        if not cfg.get("start") or not cfg.get("end"):
            return None
        return cls(_month_day(cfg["start"]), _month_day(cfg["end"]))

    def contains(self, d: date) -> bool:
        """Whether ``d`` falls in the season, from its start through its end."""
        md = (d.month, d.day)
        if self.start <= self.end:
            return self.start <= md <= self.end
        return md >= self.start or md <= self.end

    def label(self) -> str:
        return f"{self.start[0]:02d}-{self.start[1]:02d} to {self.end[0]:02d}-{self.end[1]:02d}"
