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
