"""The Wisconsin statewide parcel schema (SCO / WLIP, V6 names) as our parcel columns.

Counties publish tax parcels with the same attribute names (``PARCELID``,
``OWNERNME1``, ``PSTLADRESS`` …); names are matched case-insensitively, since exports
differ in case. ``PSTLADRESS`` is the owner's whole postal address on one line; it is
split into street, city, state and ZIP where the line allows (:func:`split_postal`).
``PLACENAME``, ``STATE``, ``ZIPCODE`` and ``ZIP4`` describe the *site*, so they fill
the mailing city, state and ZIP only when the owner's postal line is the site address
itself (an owner-occupied parcel whose postal line has no last line).
"""

from __future__ import annotations

import re
from typing import Any

#: WI field (upper case) -> our column, for fields copied as they are.
DIRECT = {
    "PARCELID": "parcel_number",
    "OWNERNME1": "owner_name",
    "OWNERNME2": "owner_name_2",
    "SITEADRESS": "site_address",
}
#: Fields this module reads to compute columns (beside DIRECT).
COMPUTED = ("TAXPARCELID", "PSTLADRESS", "PLACENAME", "STATE", "ZIPCODE", "ZIP4", "PROPCLASS", "IMPVALUE")
#: The rest of the V6 schema: known, read, not stored.
OTHER = (
    "STATEID", "PARCELDATE", "TAXROLLYEAR", "ADDNUMPREFIX", "ADDNUM", "ADDNUMSUFFIX", "PREFIX",
    "STREETNAME", "STREETTYPE", "SUFFIX", "LANDMARKNAME", "UNITTYPE", "UNITID", "SCHOOLDIST",
    "SCHOOLDISTNO", "CNTASSDVALUE", "LNDVALUE", "MFLVALUE", "ESTFMKVALUE", "NETPRPTA", "GRSPRPTA",
    "AUXCLASS", "ASSDACRES", "DEEDACRES", "GISACRES", "CONAME", "LOADDATE", "PARCELFIPS", "PARCELSRC",
    "LONGITUDE", "LATITUDE", "OBJECTID", "FORESTVALUE",
)
_ALL = (*DIRECT, *COMPUTED, *OTHER)
#: Every name, and its 10-character shapefile form (``TAXPARCELI``).
FIELDS = frozenset(_ALL) | frozenset(name[:10] for name in _ALL)

#: PROPCLASS (first class listed) -> user class of § 315 (1 residential, 2 commercial,
#: 3 manufacturing, X1–X4 exempt: federal, state, county, other public).
PROPCLASS_USER = {"1": "residential", "2": "commercial", "3": "industrial"}

STREET_TYPES = (
    "ST", "AVE", "AV", "DR", "RD", "LN", "CT", "BLVD", "WAY", "HWY", "PL", "CIR", "TRL", "PKWY", "TER",
    "STREET", "AVENUE", "DRIVE", "ROAD", "LANE", "COURT", "PLACE", "PARKWAY", "TRAIL", "CIRCLE", "SQ",
    "ALY", "LOOP", "RUN", "PASS", "PT", "XING", "RDG",
)
ROUTE_OWNERS = ("COUNTY", "STATE", "US", "CTH", "STH", "CTY")
_LAST_LINE = re.compile(r"^(?P<head>.*?)[\s,]+(?P<state>[A-Z]{2})[\s,]+(?P<zip>\d{5})(?:[-\s]?(?P<zip4>\d{4}))?$")
_UNIT = re.compile(r"^(APT|UNIT|STE|#|LOT|RM|FL)\b")
_PO_BOX = re.compile(r"^(P\s*O\s*BOX|BOX|PO BOX)\s+\S+", re.I)


def is_wi_schema(fields: list[str]) -> bool:
    """The file carries the statewide schema's parcel number and owner fields."""
    upper = {f.upper() for f in fields}
    return {"PARCELID", "OWNERNME1"} <= upper or {"TAXPARCELID", "PSTLADRESS"} <= upper


def _clean(value: Any) -> str | None:
    text = None if value is None else re.sub(r"\s+", " ", str(value)).strip()
    return text if text and text.lower() not in ("none", "nan", "<null>") else None


def split_postal(line: str | None) -> dict[str, str | None]:
    """``"412 N DETTLOFF DR ARCADIA WI 54612"`` -> street, city, state, ZIP.

    The last line is found from the end: a two-letter state and a ZIP (+4). The city
    is what follows a comma, else what follows the last street type or unit (``DR``,
    ``APT 3``), a PO box, else the last word. A line with no state and ZIP is all street.
    """
    out: dict[str, str | None] = {"mailing_street": None, "mailing_city": None, "mailing_state": None,
                                  "mailing_zip": None}
    text = _clean(line)
    if not text:
        return out
    text = text.upper()
    match = _LAST_LINE.match(text)
    if not match:
        out["mailing_street"] = text
        return out
    out["mailing_state"] = match["state"]
    out["mailing_zip"] = match["zip"] + (f"-{match['zip4']}" if match["zip4"] else "")
    head = match["head"].strip(" ,")
    if "," in head:
        street, city = head.rsplit(",", 1)
    else:
        street, city = _split_street_city(head.split())
    out["mailing_street"], out["mailing_city"] = street.strip(" ,") or None, city.strip(" ,") or None
    return out


def _split_street_city(words: list[str]) -> tuple[str, str]:
    po_box = _PO_BOX.match(" ".join(words))
    if po_box:
        n = len(po_box.group(0).split())
        return " ".join(words[:n]), " ".join(words[n:])
    # The last street type that has a word after it; a unit right after it stays in the street.
    for i in range(len(words) - 2, 0, -1):
        if words[i] in STREET_TYPES:
            end = i + 1
            # "COUNTY ROAD A", "HWY 93": the route's letter or number is part of the street.
            if (words[i] in ("HWY", "HIGHWAY") or words[i - 1] in ROUTE_OWNERS) and end < len(words) - 1:
                end += 1
            if end < len(words) - 1 and _UNIT.match(words[end]):
                end += 2
            return " ".join(words[:end]), " ".join(words[end:])
    return " ".join(words[:-1]), words[-1]


def user_class(propclass: Any) -> str | None:
    """``PROPCLASS`` (``"1"``, ``"2,1"``, ``"X4"``) as a user class; None when blank."""
    text = _clean(propclass)
    if not text:
        return None
    first = re.split(r"[,;\s]+", text.upper())[0]
    if first.startswith("X"):
        return "public_authority"
    return PROPCLASS_USER.get(first, "residential")


def columns(record: dict[str, Any]) -> dict[str, Any]:
    """Our parcel columns from one record of the statewide schema (keys upper case)."""
    upper = {k.upper(): v for k, v in record.items()}
    get = upper.get
    out: dict[str, Any] = {ours: _clean(get(theirs)) for theirs, ours in DIRECT.items() if theirs in upper}
    if not out.get("parcel_number"):
        out["parcel_number"] = _clean(get("TAXPARCELID", get("TAXPARCELI")))
    if "PSTLADRESS" in upper:
        postal = split_postal(get("PSTLADRESS"))
        site = _clean(get("SITEADRESS"))
        if postal["mailing_city"] is None and postal["mailing_street"] and site and \
                postal["mailing_street"] == site.upper():
            zip5, zip4 = _clean(get("ZIPCODE")), _clean(get("ZIP4"))
            postal.update(mailing_city=_clean(get("PLACENAME")), mailing_state=_clean(get("STATE")),
                          mailing_zip=(zip5 + (f"-{zip4}" if zip4 else "")) if zip5 else None)
            if postal["mailing_city"]:
                postal["mailing_city"] = re.sub(r"^(CITY|VILLAGE|TOWN) OF ", "", postal["mailing_city"].upper())
        out.update(postal)
    if _clean(get("PROPCLASS")):
        out["user_class"] = user_class(get("PROPCLASS"))
    imp = get("IMPVALUE")
    if isinstance(imp, (int, float)) and imp == imp:  # not NaN
        out["has_building"] = imp > 0
    return out

