"""Loading the synthetic demo city (``server.demo``) and its demo logins."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import shapely
from geoalchemy2.shape import from_shape
from sqlalchemy import func, insert, select

from server.core.accounts.models import User
from server.core.accounts.service import create_user, mark_demo_database
from server.core.audit import trail as audit
from server.core.dialects import fold_layer_count, is_sqlite, refresh_planner_statistics, reset_id_sequences
from server.core.extensions import db
from server.core.transaction import own_transaction
from server.demo.city import LAYERS as CITY_LAYERS
from server.demo.city import CityPlan
from server.network.layers import LAYERS
from server.network.models import Parcel

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
    on_rows: Callable[[int, int, str], None] = lambda _done, _total, _layer: None,
    batch_size: int = 5000,
) -> str:
    """Load the demo city in one transaction of its own; returns a one-line report.

    The city is streamed: its plan is numpy arrays (a few hundred bytes a parcel) and
    rows are made and inserted ``batch_size`` at a time, so memory stays bounded at a
    million parcels. ``on_rows(rows_done, rows_total, layer)`` is called once with a
    total of 0 before the plan is made, then after every batch (a progress bar);
    ``progress(message)`` tells the steps after the rows.

    With ``living`` (it needs the demo users) the survey is then played forward to today
    (:mod:`server.demo.living`): assignments, inspections with photos (stored
    in ``blobs``, the app's blob store), a rules run and notices in every state.
    """
    if living and not with_users:
        raise DemoError("the survey under way (living) needs the demo users")
    existing = db.session.scalar(select(func.count()).select_from(Parcel))
    if existing:
        if if_empty:
            return f"the database already holds {existing} parcels; demo city not loaded again"
        raise DemoError(f"the database already holds {existing} parcels; seed only an empty database")
    on_rows(0, 0, "planning")  # the plan of a million parcels takes a minute or two
    plan = CityPlan(parcels, rng_seed)
    total = sum(plan.count(layer) for layer in CITY_LAYERS)
    counts: dict[str, int] = {}
    # The city is one unit of work wherever it is loaded from (the CLI, `make run`, tests
    # that then serve it), so the load is a transaction of its own: all of it or none.
    with own_transaction():
        done = 0
        on_rows(done, total, CITY_LAYERS[0])
        write = _insert if is_sqlite(db.session.get_bind()) else _copy
        for layer in CITY_LAYERS:
            n = plan.count(layer)
            for start in range(0, n, batch_size):
                rows = plan.rows(layer, start, min(start + batch_size, n))
                write(MODELS[layer], rows)
                counts[layer] = counts.get(layer, 0) + len(rows)
                done += len(rows)
                on_rows(done, total, layer)
        reset_id_sequences(db.session, [m.__table__.name for m in MODELS.values()])
        # The banner on every page says so: this database's logins have a published password.
        mark_demo_database()
        if with_users:
            _seed_users()
        audit.record("seed", "demo_city", None, None, {"parcels": parcels, "seed": rng_seed, "counts": counts})
        story = None
        if living:
            from server.demo.living import seed_living

            story = seed_living(blobs, progress)
            # The demo plumber (login ``plumber``): an application sent online, a CCTV inspection to review.
            from server.demo.plumber import seed_plumber

            seed_plumber(DEMO_PASSWORD, blobs)
        # The triggers appended a count delta per batch (PostgreSQL); folded here, as an
        # import folds its own, so no count or tile version sums them until the first edit.
        for model in MODELS.values():
            fold_layer_count(db.session, model.__table__.name)
        # In the load's transaction: PostgreSQL's ANALYZE counts the rows it inserted.
        refresh_planner_statistics(db.session)
    report = "demo city loaded: " + ", ".join(f"{n:,} {layer.replace('_', ' ')}" for layer, n in counts.items())
    return report + (f"; {story.report()}" if story is not None else "")


def _insert(model, rows: list[dict]) -> None:
    db.session.execute(insert(model), [_row(r) for r in rows])


def _copy(model, rows: list[dict]) -> None:
    """PostgreSQL: one ``COPY … FROM STDIN`` per batch, about four times the INSERTs' speed.

    Columns the city leaves out get their model default (``version``, the stamps, a
    layer's defaults), as the ORM's INSERT would give them; the geometry goes as hex EWKB.
    """
    if not rows:
        return
    table = model.__table__
    given = [name for name in rows[0] if name != "geometry"]
    defaults = {}
    for column in table.columns:
        if column.name in given or column.name == "geom" or column.default is None:
            continue
        default = column.default
        if not (default.is_scalar or default.is_callable):  # a SQL expression: not for COPY
            raise DemoError(f"{table.name}.{column.name}: a default COPY cannot give")
        arg = default.arg
        defaults[column.name] = arg(None) if default.is_callable else arg
    columns = [*given, *defaults, "geom"]
    shapes = np.empty(len(rows), dtype=object)
    shapes[:] = [r["geometry"] for r in rows]
    geoms = shapely.to_wkb(shapely.set_srid(shapes, 4326), hex=True, include_srid=True).tolist()
    fixed = tuple(defaults.values())
    raw = db.session.connection().connection.driver_connection
    assert raw is not None
    cursor = raw.cursor()
    quoted = ", ".join(f'"{c}"' for c in columns)
    with cursor.copy(f'COPY "{table.name}" ({quoted}) FROM STDIN') as copy:
        for row, geom in zip(rows, geoms, strict=True):
            copy.write_row((*(row[c] for c in given), *fixed, geom))


def _seed_users() -> None:
    for username, role, name in DEMO_USERS:
        if db.session.scalar(select(User.id).where(User.username == username)) is None:
            # The published demo password would fail the policy; it exists only here.
            create_user(username, role, DEMO_PASSWORD, name, enforce_policy=False)
