"""The NASSCO condition codes a plumber's CCTV report of a lateral may carry, and the checks
on one coded observation. Pure: the codes are a data file (``data/lacp_codes.csv``), read
once; no Flask, no database.

An observation is where the camera saw what: the defect code, the distance from the
cleanout the camera went in at (feet, to a tenth), the clock position looking downstream
(1 to 12) and the grade NASSCO gives the condition (1, minor, to 5, most severe). The time
in the video (seconds) is optional: with it, staff jump to the frame.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path


def _english(text: str, /, **fields: object) -> str:
    return text % fields if fields else text


#: How a refusal's words are put in the reader's language. This module is pure (no Flask),
#: so the portal hands it its translator at start-up (:func:`translate_with`); alone, English.
_translate: Callable[..., str] = _english


def translate_with(translator: Callable[..., str]) -> None:
    """Use ``translator`` (the portal's ``_``) for the words of refusals from now on."""
    global _translate
    _translate = translator


def _(text: str, /, **fields: object) -> str:
    return _translate(text, **fields)

DATA = Path(__file__).resolve().parent / "data" / "lacp_codes.csv"
FAMILIES = ("structural", "operational", "construction", "miscellaneous")
#: The longest lateral a report may run (feet): past a block's depth a number is a typo.
MAX_DISTANCE_FT = Decimal("1000")
MAX_REMARK = 500


@dataclass(frozen=True)
class Code:
    code: str
    family: str
    description: str


@dataclass(frozen=True)
class Observation:
    """One coded observation, checked."""

    code: str
    distance_ft: Decimal
    clock: int
    grade: int
    seconds: Decimal | None = None
    remark: str | None = None


class BadObservation(ValueError):
    """An observation with a value out of its range: ``field`` names it, ``message`` says why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


@cache
def codes() -> dict[str, Code]:
    """Every code of the data file, by code."""
    out: dict[str, Code] = {}
    with DATA.open(encoding="utf-8") as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            code = Code(row["code"].strip(), row["family"].strip(), row["description"].strip())
            if code.family not in FAMILIES or code.code in out:
                raise ValueError(f"{DATA.name}: bad or repeated code {code.code!r}")
            out[code.code] = code
    return out


def describe(code: str) -> str:
    found = codes().get(code)
    return f"{found.description} ({code})" if found else code


def _decimal(value, field: str, what: str) -> Decimal:
    try:
        number = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        raise BadObservation(field, _("%(what)s, a number such as 23.5", what=what)) from None
    if not number.is_finite():
        raise BadObservation(field, _("%(what)s, a number such as 23.5", what=what))
    return number


def _whole(value, field: str, low: int, high: int, what: str) -> int:
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
        raise BadObservation(field, _("%(what)s: a whole number from %(low)s to %(high)s", what=what, low=low,
                                      high=high))
    return int(text)


def check(raw: dict) -> Observation:
    """One observation from text fields (``code``, ``distance_ft``, ``clock``, ``grade``,
    optional ``seconds`` and ``remark``).

    Raises:
        BadObservation: naming the first field that is wrong.
    """
    code = str(raw.get("code") or "").strip().upper()
    if code not in codes():
        raise BadObservation("code", _("%(code)s is not a NASSCO LACP/PACP condition code",
                                        code=code or _("an empty code")))
    distance = _decimal(raw.get("distance_ft"), "distance_ft", _("the distance from the cleanout in feet"))
    if not Decimal(0) <= distance <= MAX_DISTANCE_FT:
        raise BadObservation("distance_ft", _("the distance from the cleanout: 0 to %(most)s feet",
                                              most=MAX_DISTANCE_FT))
    if distance != distance.quantize(Decimal("0.1")):
        raise BadObservation("distance_ft", _("the distance from the cleanout to a tenth of a foot"))
    clock = _whole(raw.get("clock"), "clock", 1, 12, _("the clock position"))
    grade = _whole(raw.get("grade"), "grade", 1, 5, _("the grade"))
    seconds = None
    if str(raw.get("seconds") or "").strip():
        seconds = _decimal(raw["seconds"], "seconds", _("the time in the video in seconds"))
        if seconds < 0 or seconds > 86400:
            raise BadObservation("seconds", _("the time in the video: 0 seconds or more, within a day"))
    remark = str(raw.get("remark") or "").strip() or None
    if remark is not None and len(remark) > MAX_REMARK:
        raise BadObservation("remark", _("the remark: at most %(most)s characters", most=MAX_REMARK))
    return Observation(code, distance, clock, grade, seconds, remark)
