"""``flask --app server doctor``: each check passes on a sound server and names its problem otherwise."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from flask_migrate import upgrade

from server.core import jobs, settings
from server.core.models import utcnow
from server.operations import doctor
from tests.support.databases import ENGINES, postgis_database

GOOD_KEY = "k" * 48


def configure(app, monkeypatch, **changes) -> None:
    """Give ``app`` the settings it would have had with ``changes`` in its environment."""
    monkeypatch.setitem(app.extensions, settings.EXTENSION, replace(settings.of(app), **changes))


@pytest.fixture
def sound(app, monkeypatch):
    """The test app set up as a city's server should be: every check passes."""
    from server.core.extensions import db

    configure(app, monkeypatch, secret_key=GOOD_KEY, session_cookie_secure=True, behind_proxy=True,
              doctor_min_free_mb=1, rulebook="arcadia")
    jobs.record_run(jobs.NOTICES_TICK, {"complied": 0})
    jobs.record_run(jobs.BACKUP, {"file": "x"})
    db.session.flush()
    return app


def problems(app, **kwargs) -> dict[str, str]:
    return {f.check: f.message for f in doctor.run_checks(app, **kwargs) if not f.ok}


def test_a_sound_server_has_no_problems_and_the_command_exits_zero(sound):
    assert problems(sound) == {}
    result = sound.test_cli_runner().invoke(args=["doctor"])
    assert result.exit_code == 0, result.output
    assert "PROBLEM" not in result.output
    assert "ok       migrations" in result.output
    assert "No problems found." in result.output


def test_the_command_exits_non_zero_and_says_what_is_wrong(sound, monkeypatch):
    configure(sound, monkeypatch, secret_key="dev")
    result = sound.test_cli_runner().invoke(args=["doctor"])
    assert result.exit_code == 1
    assert "PROBLEM  secret key: SECRET_KEY is a well-known default ('dev')" in result.output


@pytest.mark.parametrize("key, words", [("dev", "well-known default"), ("change-me", "well-known default"),
                                        ("", "well-known default"), ("s3cr3t-key", "only 10 characters")])
def test_a_default_or_short_secret_key_is_a_problem(sound, monkeypatch, key, words):
    configure(sound, monkeypatch, secret_key=key)
    assert words in problems(sound)["secret key"]


def test_a_setting_that_fails_the_start_up_checks_is_a_problem(sound, monkeypatch):
    configure(sound, monkeypatch, gzip_level=12, blob_backend="s3")
    found = [f.message for f in doctor.run_checks(sound) if f.check == "settings" and not f.ok]
    assert found == ["LATERAL_GZIP_LEVEL=12: is not between 0 and 9.",
                     "BLOB_S3_BUCKET: must be set when BLOB_STORE=s3."]


def test_cookies_not_secure_are_a_problem(sound, monkeypatch):
    configure(sound, monkeypatch, session_cookie_secure=False)
    assert "not marked Secure" in problems(sound)["secure cookies"]


@pytest.mark.parametrize("kind", ENGINES)
def test_an_unreachable_database_is_a_problem(kind, tmp_path):
    from server import create_app
    from server.core.extensions import db

    url = (f"sqlite:///{tmp_path}/no-such-folder/lateral.sqlite" if kind == "spatialite"
           else "postgresql+psycopg://postgres@127.0.0.1:9/lateral?connect_timeout=2")
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": GOOD_KEY, "TESTING": True,
                      "BLOB_STORE": {"backend": "local", "root": str(tmp_path / "blobs")},
                      "TUS_STAGING_DIR": str(tmp_path / "tus")})
    with app.app_context():
        found = problems(app)
        db.session.remove()
        db.engine.dispose()
    assert found["database"].startswith("The database cannot be reached")
    assert "unreachable or not migrated" in found[jobs.BACKUP]


@pytest.mark.parametrize("kind", ENGINES)
def test_a_database_behind_the_newest_migration_is_a_problem(kind, tmp_path):
    from server import create_app
    from server.core.extensions import db

    drop = None
    if kind == "spatialite":
        url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    else:
        url, drop = postgis_database()
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": GOOD_KEY, "TESTING": True,
                      "BLOB_STORE": {"backend": "local", "root": str(tmp_path / "blobs")},
                      "TUS_STAGING_DIR": str(tmp_path / "tus")})
    try:
        with app.app_context():
            empty = {f.check: f for f in doctor.check_database(app)}
            db.session.remove()  # each doctor run is a new process with a new session
            upgrade(revision="0005_violation_resolutions")
            behind = {f.check: f for f in doctor.check_database(app)}
            db.session.remove()
            upgrade()
            current = {f.check: f for f in doctor.check_database(app)}
            db.session.remove()
            db.engine.dispose()
    finally:
        if drop:
            drop()
    assert empty["database"].ok and "no tables of Lateral's yet" in empty["migrations"].message
    assert not behind["migrations"].ok
    assert "at migration 0005_violation_resolutions" in behind["migrations"].message
    assert "db upgrade" in behind["migrations"].message
    assert current["migrations"].ok


def test_a_blob_store_that_refuses_writes_is_a_problem(sound, tmp_path, monkeypatch):
    from server.core.storage import LocalBlobStore
    from server.field.api.photos import BLOBS

    store = LocalBlobStore(tmp_path / "blobs")
    (tmp_path / "blobs").rmdir()
    (tmp_path / "blobs").write_text("a file where the store's folder should be")
    monkeypatch.setitem(sound.extensions, BLOBS, store)
    assert problems(sound)["blob store"].startswith("Photos cannot be stored")


def test_an_s3_blob_store_is_written_and_read_back(sound, monkeypatch):
    import boto3
    from moto import mock_aws

    from server.core.storage import make_blob_store
    from server.field.api.photos import BLOBS

    with mock_aws():
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="evidence")
        monkeypatch.setitem(sound.extensions, BLOBS, make_blob_store(
            {"backend": "s3", "bucket": "evidence", "region": "us-east-1"}))
        assert doctor.check_blob_store(sound).ok
        monkeypatch.setitem(sound.extensions, BLOBS, make_blob_store(
            {"backend": "s3", "bucket": "no-such-bucket", "region": "us-east-1"}))
        assert "NoSuchBucket" in problems(sound)["blob store"]


def test_an_unwritable_upload_staging_folder_is_a_problem(sound, tmp_path, monkeypatch):
    from server.field.api.photos import TUS

    (tmp_path / "staging").write_text("not a folder")
    monkeypatch.setattr(sound.extensions[TUS], "staging_dir", tmp_path / "staging" / "tus")
    assert "is not writable" in problems(sound)["upload staging"]


@pytest.mark.parametrize("toml, words", [
    ("[municipality]\nname = 'Nowhere'\n", "time_zone is required"),
    ("[municipality]\ntime_zone = 'America/Arcadia'\n", "not a known IANA time zone"),
    ("[municipality]\ntime_zone = 'America/Chicago'\n", "has no deadline for"),
    ("[municipality\n", "not valid TOML"),
])
def test_a_rulebook_that_does_not_validate_is_a_problem(sound, tmp_path, monkeypatch, toml, words):
    path = tmp_path / "city.toml"
    path.write_text(toml)
    configure(sound, monkeypatch, rulebook=str(path))
    assert words in problems(sound)["rulebook"]


def test_the_rulebook_check_names_the_city_time_zone(sound):
    finding = doctor.check_rulebook(sound)
    assert finding.ok and "America/Chicago" in finding.message


def test_a_clock_behind_the_audit_trail_is_a_problem(sound, db_kind):
    from server.core.audit.models import AuditEvent
    from server.core.extensions import db

    db.session.add(AuditEvent(action="job_run", subject_type="clock probe", at=utcnow()))
    db.session.flush()
    assert doctor.check_clock(sound).ok
    found = problems(sound, now=lambda: utcnow() - timedelta(hours=3))
    # On PostGIS the database server's own clock disagrees first; on SpatiaLite the trail does.
    words = "differ by more than 5 minutes" if db_kind == "postgis" else "behind the newest audit entry"
    assert words in found["clock"]


def test_a_clock_ahead_of_the_database_server_is_a_problem_on_postgis(sound, db_kind):
    found = problems(sound, now=lambda: utcnow() + timedelta(hours=2))
    if db_kind == "postgis":
        assert "differ by more than 5 minutes" in found["clock"]
    else:  # SQLite has no clock of its own: the server's is the database's
        assert "clock" not in found


def test_no_backup_recorded_is_a_problem(app, monkeypatch):
    configure(app, monkeypatch, doctor_min_free_mb=1)
    found = problems(app)
    assert found[jobs.BACKUP].startswith("No backup recorded")
    assert found[jobs.NOTICES_TICK].startswith("No notices tick recorded")


def test_a_tick_or_backup_older_than_two_days_is_a_problem(sound):
    later = utcnow() + timedelta(days=2, hours=1)
    found = problems(sound, now=lambda: later)
    assert "more than 48 hours ago" in found[jobs.NOTICES_TICK]
    assert "more than 48 hours ago" in found[jobs.BACKUP]
    assert doctor.check_job(sound, jobs.BACKUP, now=lambda: utcnow() + timedelta(days=1)).ok


def test_the_daily_tick_and_the_upload_purge_record_their_runs(app):
    assert jobs.last_run(jobs.NOTICES_TICK) is None
    runner = app.test_cli_runner()
    assert runner.invoke(args=["notices", "tick"]).exit_code == 0
    assert runner.invoke(args=["photos", "purge-uploads"]).exit_code == 0
    assert utcnow() - jobs.last_run(jobs.NOTICES_TICK) < timedelta(minutes=5)
    assert jobs.last_run(jobs.PURGE_UPLOADS) is not None
    assert doctor.check_job(app, jobs.NOTICES_TICK).ok


def test_too_little_free_disk_space_is_a_problem(sound, monkeypatch):
    configure(sound, monkeypatch, doctor_min_free_mb=1024 * 1024 * 1024)  # a petabyte
    assert "LATERAL_DOCTOR_MIN_FREE_MB" in problems(sound)["disk space"]


def test_behind_the_proxy_links_follow_the_forwarded_scheme_host_and_address(tmp_path):
    from flask import request, url_for

    from server import create_app
    from server.core.access import PUBLIC, access

    headers = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "lateral.arcadia.example",
               "X-Forwarded-For": "10.0.0.7"}
    seen = {}
    for behind in (True, False):
        app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/p.sqlite", "SECRET_KEY": GOOD_KEY,
                          "LATERAL_BEHIND_PROXY": behind, "BLOB_STORE": {"backend": "local", "root": str(tmp_path)},
                          "TUS_STAGING_DIR": str(tmp_path / "tus")})
        # The test's own route, declared.
        app.add_url_rule("/probe", "probe", access(PUBLIC)(lambda: {
            "link": url_for("probe", _external=True), "client": request.remote_addr, "secure": request.is_secure}))
        seen[behind] = app.test_client().get("/probe", headers=headers).get_json()
    assert seen[True] == {"link": "https://lateral.arcadia.example/probe", "client": "10.0.0.7", "secure": True}
    # Reached directly, the same headers are a client's word and are not believed.
    assert seen[False] == {"link": "http://localhost/probe", "client": "127.0.0.1", "secure": False}


@pytest.mark.parametrize("old, new, words", [
    ('upheld_period = "notice_period"', "", "[appeals] upheld_period"),
    ('upheld_period_resolution = "Utility Commission Resolution 2009-08, adopted 2009-09-08"', "",
     "[appeals] upheld_period_resolution"),
])
def test_a_rulebook_choice_left_unmade_is_a_problem(sound, tmp_path, monkeypatch, old, new, words):
    from gis.rulebook import RULEBOOK_DIR

    text = (RULEBOOK_DIR / "arcadia.toml").read_text()
    assert old in text
    path = tmp_path / "city.toml"
    path.write_text(text.replace(old, new))
    configure(sound, monkeypatch, rulebook=str(path))
    assert words in problems(sound)["rulebook choices"]


def test_a_parcel_far_from_the_city_is_named(sound, seeded_city_300):
    from tests.support.framing import STRAY_NUMBER, add_stray_parcel

    assert doctor.check_stray_parcels(sound).ok
    add_stray_parcel()
    found = problems(sound)
    assert STRAY_NUMBER in found["stray parcels"] and "far from the rest of the city" in found["stray parcels"]
