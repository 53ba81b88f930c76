"""Finding a street, or one block of it, by the words an address uses.

``"W Jackson St"`` is the whole street (every piece of it named so); ``"200 W Jackson St"``
or ``"200 block of W Jackson St"`` is the piece whose house numbers take in 200–299.
"""

from __future__ import annotations

import re

import shapely
from sqlalchemy import func, or_, select

from server.core.extensions import db
from server.network.models import Street

_BLOCK = re.compile(r"^(?P<number>\d+)\s+(?:block\s+(?:of\s+)?)?(?P<name>\S.*)$", re.I)


def _like(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def find_streets(query: str, limit: int = 5) -> list[dict]:
    """Streets (or one block of each) whose name contains the query's street words.

    Returns ``{"name", "block", "bbox"}`` per street name, by name: ``block`` is the
    hundred a house number in the query falls in (None for the whole street), ``bbox``
    the extent of the pieces that match (minLon, minLat, maxLon, maxLat).
    """
    text = re.sub(r"\s+", " ", query).strip()
    match = _BLOCK.match(text)
    block = None
    if match:
        block, text = int(match["number"]) // 100 * 100, match["name"]
    if len(text) < 3:
        return []
    stmt = select(Street.name, func.ST_AsBinary(Street.geom)).where(
        func.lower(Street.name).like(_like(text), escape="\\"))
    if block is not None:
        top = block + 99
        stmt = stmt.where(or_(
            (func.coalesce(Street.left_from, -1) <= top) & (func.coalesce(Street.left_to, -1) >= block),
            (func.coalesce(Street.left_to, -1) <= top) & (func.coalesce(Street.left_from, -1) >= block),
            (func.coalesce(Street.right_from, -1) <= top) & (func.coalesce(Street.right_to, -1) >= block),
            (func.coalesce(Street.right_to, -1) <= top) & (func.coalesce(Street.right_from, -1) >= block),
        ))
    pieces: dict[str, list] = {}
    for name, wkb in db.session.execute(stmt.order_by(Street.name, Street.id)):
        if name in pieces or len(pieces) < limit:
            pieces.setdefault(name, []).append(shapely.from_wkb(bytes(wkb)))
    return [{"name": name, "block": block, "bbox": list(shapely.GeometryCollection(lines).bounds)}
            for name, lines in pieces.items()]
