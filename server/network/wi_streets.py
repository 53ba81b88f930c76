"""Road centrelines as counties publish them, as our street columns.

Wisconsin counties keep their road centrelines in the NENA NG911 GIS data model
(``St_PreDir``, ``St_Name``, ``St_PosTyp`` …, ``FromAddr_L`` … ``ToAddr_R``), which
the state's NG911 road layer gathers; the Census Bureau's TIGER/Line roads and address
features carry ``FULLNAME`` and ``LFROMHN`` … ``RTOHN`` (older files ``LFROMADD`` …).
Names are matched case-insensitively, since exports differ in case. Left and right are
as the file draws them: walking from the line's first vertex to its last.
"""

from __future__ import annotations

import re
from typing import Any

#: NG911 street name parts, in the order an address writes them.
NAME_PARTS = ("ST_PREMOD", "ST_PREDIR", "ST_PRETYP", "ST_PRESEP", "ST_NAME", "ST_POSTYP", "ST_POSDIR", "ST_POSMOD")
#: A whole name in one field.
FULL_NAME = ("FULLNAME", "FULL_NAME", "ST_FULLNAM", "STREETNAME")
#: Our range column -> the schemas' fields for it, first found wins.
RANGES = {
    "left_from": ("FROMADDR_L", "LFROMHN", "LFROMADD", "L_F_ADD"),
    "left_to": ("TOADDR_L", "LTOHN", "LTOADD", "L_T_ADD"),
    "right_from": ("FROMADDR_R", "RFROMHN", "RFROMADD", "R_F_ADD"),
    "right_to": ("TOADDR_R", "RTOHN", "RTOADD", "R_T_ADD"),
}
_ALL = (*NAME_PARTS, *FULL_NAME, *(f for fs in RANGES.values() for f in fs))
#: Every name this module reads, and its 10-character shapefile form.
FIELDS = frozenset(_ALL) | frozenset(name[:10] for name in _ALL)


def is_centreline_schema(fields: list[str]) -> bool:
    """The file names its streets in one of the schemas above and numbers their sides."""
    upper = {f.upper() for f in fields}
    named = "ST_NAME" in upper or bool(upper & set(FULL_NAME))
    numbered = any(upper & set(fs) for fs in RANGES.values())
    return named and numbered


def _clean(value: Any) -> str | None:
    text = None if value is None else re.sub(r"\s+", " ", str(value)).strip()
    return text if text and text.lower() not in ("none", "nan", "<null>") else None


def _number(value: Any) -> int | None:
    text = _clean(value)
    if text is None:
        return None
    try:
        number = int(float(text))
    except ValueError:
        return None
    return number if number > 0 else None  # 0 is how the schemas say "no address on this side"


def _get(upper: dict[str, Any], name: str) -> Any:
    return upper.get(name, upper.get(name[:10]))


def columns(record: dict[str, Any]) -> dict[str, Any]:
    """Our street columns from one centreline record."""
    upper = {k.upper(): v for k, v in record.items()}
    name = None
    if any(_get(upper, p) is not None for p in NAME_PARTS):
        name = " ".join(filter(None, (_clean(_get(upper, p)) for p in NAME_PARTS))) or None
    for full in FULL_NAME:
        if name is None:
            name = _clean(_get(upper, full))
    out: dict[str, Any] = {"name": name}
    for ours, theirs in RANGES.items():
        found = next((f for f in theirs if _get(upper, f) is not None), None)
        out[ours] = _number(_get(upper, found)) if found else None
    return out
