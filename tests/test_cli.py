"""The command line: users and the demo city."""

from __future__ import annotations

from sqlalchemy import func, select

from server.core.accounts.models import User
from server.core.extensions import db
from server.network.models import Parcel


def test_users_create_reads_the_password_from_stdin(app):
    result = app.test_cli_runner().invoke(
        args=["users", "create", "dana", "--role", "clerk", "--password-stdin"], input="a long enough password\n"
    )
    assert result.exit_code == 0, result.output
    user = db.session.scalar(select(User).where(User.username == "dana"))
    assert user.role == "clerk"
    assert "a long enough password" not in user.password_hash


def test_users_create_refuses_a_short_password(app):
    result = app.test_cli_runner().invoke(
        args=["users", "create", "eve", "--role", "inspector", "--password-stdin"], input="short\n"
    )
    assert result.exit_code != 0
    assert "at least 10 characters" in result.output
    assert db.session.scalar(select(User).where(User.username == "eve")) is None


def test_users_create_refuses_an_unknown_role(app):
    result = app.test_cli_runner().invoke(args=["users", "create", "x", "--role", "mayor", "--password-stdin"],
                                          input="a long enough password\n")
    assert result.exit_code == 2
    assert "mayor" in result.output


def test_demo_seed_loads_the_city_and_demo_logins(app):
    result = app.test_cli_runner().invoke(args=["demo", "seed", "--parcels", "200"])
    assert result.exit_code == 0, result.output
    assert "200 parcels" in result.output
    assert db.session.scalar(select(func.count()).select_from(Parcel)) == 200
    assert set(db.session.scalars(select(User.username))) >= {"inspector", "superintendent", "clerk", "admin"}


def test_demo_seed_reports_its_progress_on_stderr(app):
    result = app.test_cli_runner().invoke(args=["demo", "seed", "--parcels", "300", "--no-living"])
    assert result.exit_code == 0, result.output
    assert "planning a city of 300 parcels" in result.stderr
    assert "demo city, 300 parcels" in result.stderr  # the progress bar's label
    assert "planning" not in result.stdout and "300 parcels" in result.stdout


def test_demo_seed_streams_batches_and_calls_progress_after_each(app):
    from server.demo import seed as demo
    from server.demo.city import LAYERS, CityPlan

    calls = []
    demo.seed(parcels=300, with_users=False, batch_size=50, on_rows=lambda *a: calls.append(a))
    plan = CityPlan(300, 315)
    total = sum(plan.count(layer) for layer in LAYERS)
    assert calls[0] == (0, 0, "planning")
    done = [c[0] for c in calls[1:]]
    assert done == sorted(done) and done[-1] == total and all(c[1] == total for c in calls[1:])
    assert len(calls) - 2 >= sum(-(-plan.count(layer) // 50) for layer in LAYERS)
