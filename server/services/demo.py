"""Loading the synthetic demo city (``server.demo``) and its demo logins."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from geoalchemy2.shape import from_shape
from sqlalchemy import func, insert, select

from server.demo.city import LAYERS as CITY_LAYERS
from server.demo.city import iter_layers
from server.dialects import reset_id_sequences
from server.extensions import db
from server.layers import LAYERS
from server.models import (
    Parcel,
    User,
)
from server.services import audit
from server.services.auth import create_user, mark_demo_database

# The demo city's part of each layer (``Layer.demo``), keyed by the DemoCity attribute.
MODELS: dict[str, Any] = {layer.demo: layer.model for layer in LAYERS.values() if layer.demo}
assert set(MODELS) == set(CITY_LAYERS)

# Demo logins, one per role. The password is printed by `make run`; it is a demo.
DEMO_PASSWORD = "arcadia-demo"
DEMO_USERS = (
    ("inspector", "inspector", "Pat Inspector"),
    ("superintendent", "superintendent", "Sam Superintendent"),
    ("clerk", "clerk", "Chris Clerk-Treasurer"),
    ("admin", "admin", "Alex Admin"),
)


class DemoError(RuntimeError):
    """The demo city cannot be loaded here (for instance: the database is not empty)."""


def _row(row: dict) -> dict:
    values = {k: v for k, v in row.items() if k != "geometry"}
    values["geom"] = from_shape(row["geometry"], srid=4326)
    return values


def seed(
    parcels: int = 1200,
    rng_seed: int = 315,
    if_empty: bool = False,
    with_users: bool = True,
    progress: Callable[[str], None] = lambda _msg: None,
    living: bool = False,
    blobs: Any = None,
) -> str:
    """Load the demo city in one transaction; returns a one-line report.

    With ``living`` (it needs the demo users) the survey is then played forward to today
    (:mod:`server.services.demo_living`): assignments, inspections with photos (stored
    in ``blobs``, the app's blob store), a rules run and notices in every state.
    """
    if living and not with_users:
        raise DemoError("the survey under way (living) needs the demo users")
    existing = db.session.scalar(select(func.count()).select_from(Parcel))
    if existing:
        if if_empty:
            return f"the database already holds {existing} parcels; demo city not loaded again"
        raise DemoError(f"the database already holds {existing} parcels; seed only an empty database")
    counts: dict[str, int] = {}
    try:
        for layer, rows in iter_layers(parcels, rng_seed, batch_size=5000):
            db.session.execute(insert(MODELS[layer]), [_row(r) for r in rows])
            counts[layer] = counts.get(layer, 0) + len(rows)
            progress(f"  {layer.replace('_', ' ')}: {counts[layer]:,}")
        reset_id_sequences(db.session, [m.__table__.name for m in MODELS.values()])
        # The banner on every page says so: this database's logins have a published password.
        mark_demo_database()
        if with_users:
            _seed_users()
        audit.record("seed", "demo_city", None, None, {"parcels": parcels, "seed": rng_seed, "counts": counts})
        story = None
        if living:
            from server.services.demo_living import seed_living

            story = seed_living(blobs, progress)
        db.session.commit()
    except BaseException:
        db.session.rollback()
        raise
    report = "demo city loaded: " + ", ".join(f"{n:,} {layer.replace('_', ' ')}" for layer, n in counts.items())
    return report + (f"; {story.report()}" if story is not None else "")


def _seed_users() -> None:
    for username, role, name in DEMO_USERS:
        if db.session.scalar(select(User.id).where(User.username == username)) is None:
            # The published demo password would fail the policy; it exists only here.
            create_user(username, role, DEMO_PASSWORD, name, enforce_policy=False)
