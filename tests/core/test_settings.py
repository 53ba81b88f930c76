"""Settings (``server/core/settings.py``): one typed object, read once, every bad variable named at once."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from sqlalchemy import text

from server.core import settings
from server.core.setting_types import SettingsError
from tests.support.env import REPO_ROOT

OTHERTON = Path(__file__).parent / "rulebooks" / "otherton.toml"


def load(tmp_path, environ=None, overrides=None, production=False) -> settings.Settings:
    return settings.load(environ or {}, overrides, instance_path=tmp_path, production=production)


def refused(tmp_path, environ=None, overrides=None, production=False) -> dict[str, str]:
    """Each variable the settings are refused for, with why (the value shown, if it is)."""
    with pytest.raises(SettingsError) as caught:
        load(tmp_path, environ, overrides, production)
    return {p.name: str(p) for p in caught.value.problems}


def test_the_app_refuses_to_start_naming_three_bad_variables_at_once(tmp_path, monkeypatch):
    from server import create_app

    monkeypatch.setenv("LATERAL_PAGE_MAX", "lots")
    monkeypatch.setenv("LATERAL_BEHIND_PROXY", "maybe")
    monkeypatch.setenv("BLOB_STORE", "ftp")
    with pytest.raises(SettingsError) as caught:
        create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.sqlite'}", "SECRET_KEY": "test",
                    "TESTING": True})
    message = str(caught.value)
    assert "3 settings are wrong" in message
    assert "LATERAL_PAGE_MAX='lots': is not a whole number" in message
    assert "LATERAL_BEHIND_PROXY='maybe': is not yes or no" in message
    assert "BLOB_STORE='ftp': is not one of local, s3" in message


@pytest.mark.parametrize("variable, value, reason", [
    ("LATERAL_PAGE_MAX", "5k", "is not a whole number"),
    ("SYNC_AREA_MARGIN_M", "wide", "is not a number"),
    ("SYNC_AREA_MARGIN_M", "nan", "is not a finite number"),
    ("SESSION_COOKIE_SECURE", "yes please", "is not yes or no"),
    ("BLOB_STORE", "gcs", "is not one of local, s3"),
    ("LATERAL_GZIP_LEVEL", "10", "is not between 0 and 9"),
    ("TOKEN_IDLE_DAYS", "0", "is less than 1"),
    ("DATABASE_URL", "mysql://lateral@db/lateral", "has the scheme 'mysql'"),
    ("DATABASE_URL", "postgresql://lateral@db/lateral", "has the scheme 'postgresql'"),  # psycopg2's
    ("DATABASE_URL", "/var/lib/lateral/lateral.sqlite", "is not a URL"),
    ("RATELIMIT_STORAGE_URI", "redis:/cache", "is not a URL"),
    ("BASIC_AUTH_CACHE_URI", "memcached://cache:11211", "has the scheme 'memcached'"),
    ("BLOB_S3_ENDPOINT", "minio:9000", "is not a URL"),
    ("LATERAL_BASEMAP_URL", "ftp://tiles.example/{z}/{x}/{y}.png", "has the scheme 'ftp'"),
    ("LOGIN_FAILURES_PER_USERNAME", "ten a day", "is not a rate"),
    ("LATERAL_RULEBOOK", "/no/such/city.toml", "is no file that exists"),
    ("LATERAL_RULEBOOK", "atlantis", "no rulebook at"),
    ("LATERAL_MEASUREMENT_CRS", "EPSG:4326", "is not projected"),
    ("LATERAL_MEASUREMENT_CRS", "EPSG:999999", "EPSG:999999"),
])
def test_each_kind_of_bad_variable_is_named_with_why(tmp_path, variable, value, reason):
    assert reason in refused(tmp_path, {variable: value})[variable]


@pytest.mark.parametrize("variable", ["TUS_STAGING_DIR", "BLOB_ROOT", "LATERAL_THUMB_DIR"])
def test_a_folder_that_is_a_file_is_refused(tmp_path, variable):
    (tmp_path / "taken").write_text("a file")
    found = refused(tmp_path, {variable: str(tmp_path / "taken")})
    assert found[variable].endswith("exists and is not a folder")


def test_a_folder_that_does_not_exist_yet_is_made_later_and_accepted(tmp_path):
    later = tmp_path / "new" / "tus"
    assert load(tmp_path, {"TUS_STAGING_DIR": str(later)}).tus_staging_dir == later


@pytest.mark.parametrize("key, reason", [("dev", "is a well-known default ('dev')"),
                                         ("", "is a well-known default"),
                                         ("s3cr3t-key", "is only 10 characters")])
def test_a_weak_secret_key_is_refused_in_production_only(tmp_path, key, reason):
    assert reason in refused(tmp_path, overrides={"SECRET_KEY": key}, production=True)["SECRET_KEY"]
    assert load(tmp_path, overrides={"SECRET_KEY": key}).secret_key == key  # DEBUG or TESTING


def test_no_secret_key_is_one_made_and_kept_in_the_instance_folder(tmp_path):
    made = load(tmp_path, production=True).secret_key
    assert len(made) == 64 and (tmp_path / "secret_key").read_text() == made
    assert load(tmp_path, production=True).secret_key == made


def test_settings_that_disagree_with_each_other_are_named(tmp_path):
    found = refused(tmp_path, {"BLOB_STORE": "s3", "LATERAL_PAGE_DEFAULT": "500", "LATERAL_PAGE_MAX": "200"})
    assert found["BLOB_S3_BUCKET"].endswith("must be set when BLOB_STORE=s3")
    assert found["LATERAL_PAGE_DEFAULT"].endswith("is more than LATERAL_PAGE_MAX (200)")


def test_a_rulebook_whose_own_crs_is_geographic_is_named_as_the_rulebook(tmp_path):
    city = tmp_path / "flat.toml"
    city.write_text(OTHERTON.read_text().replace('crs = "EPSG:8114"', 'crs = "EPSG:4326"'))
    assert "is not projected" in refused(tmp_path, {"LATERAL_RULEBOOK": str(city)})["LATERAL_RULEBOOK"]


def test_a_variable_that_does_not_parse_is_named_once(tmp_path):
    found = refused(tmp_path, {"LATERAL_PAGE_MAX": "many"})
    assert list(found) == ["LATERAL_PAGE_MAX"]


def test_a_sensitive_value_is_never_echoed(tmp_path):
    with pytest.raises(SettingsError) as caught:
        load(tmp_path, {"DATABASE_URL": "mysql://lateral:hunter2@db/lateral",
                        "RATELIMIT_STORAGE_URI": "memcache://:hunter2@cache"}, overrides={"SECRET_KEY": "hunter2"},
             production=True)
    assert {p.name for p in caught.value.problems} == {"DATABASE_URL", "RATELIMIT_STORAGE_URI", "SECRET_KEY"}
    assert "hunter2" not in str(caught.value)
    assert "hunter2" not in repr(dataclasses.replace(load(tmp_path), secret_key="hunter2"))


def test_each_variable_is_read_as_its_type(tmp_path):
    read = load(tmp_path, {"LATERAL_PAGE_MAX": " 250 ", "LATERAL_BEHIND_PROXY": "On", "SESSION_COOKIE_SECURE": "no",
                           "SYNC_AREA_MARGIN_M": "75.5", "TUS_STAGING_DIR": str(tmp_path / "tus"),
                           "LATERAL_MEASUREMENT_CRS": "EPSG:7577"})
    assert (read.page_max, read.behind_proxy, read.session_cookie_secure) == (250, True, False)
    assert (read.sync_area_margin_m, read.tus_staging_dir) == (75.5, tmp_path / "tus")
    assert read.measurement_crs == "EPSG:7577"


def test_an_empty_variable_is_the_same_as_an_unset_one(tmp_path):
    read = load(tmp_path, {"LATERAL_PAGE_MAX": "", "LATERAL_BEHIND_PROXY": " ", "DATABASE_URL": ""})
    assert (read.page_max, read.behind_proxy) == (5000, False)
    assert read.database_url == f"sqlite:///{tmp_path / 'lateral.sqlite'}"


def test_an_override_names_its_app_config_key_and_wins_over_the_environment(tmp_path):
    read = load(tmp_path, {"LATERAL_MAX_BODY_BYTES": "99", "LATERAL_PAGE_MAX": "250"},
                overrides={"MAX_CONTENT_LENGTH": 10, "LATERAL_PAGE_MAX": "300"})
    assert (read.max_body_bytes, read.page_max) == (10, 300)


def test_an_override_of_the_wrong_type_is_named_by_its_key(tmp_path):
    found = refused(tmp_path, overrides={"LATERAL_BEHIND_PROXY": 3, "COMPRESS_LEVEL": "high",
                                         "BLOB_STORE": {"backend": "ftp"}})
    assert found["LATERAL_BEHIND_PROXY"].endswith("is of type int, not bool")
    assert found["COMPRESS_LEVEL"] == "COMPRESS_LEVEL='high': is not a whole number"
    assert found["BLOB_STORE"].endswith("names the backend 'ftp', not local or s3")


def test_the_blob_store_is_built_from_its_variables(tmp_path):
    read = load(tmp_path, {"BLOB_STORE": "s3", "BLOB_S3_BUCKET": "evidence", "BLOB_S3_ENDPOINT": "http://minio:9000"})
    assert read.blob_store == {"backend": "s3", "bucket": "evidence", "endpoint_url": "http://minio:9000",
                               "prefix": ""}
    local = load(tmp_path, {"BLOB_STORE": "local", "BLOB_ROOT": str(tmp_path / "blobs")})
    assert local.blob_store == {"backend": "local", "root": str(tmp_path / "blobs")}
    assert load(tmp_path).blob_store is None  # instance/blobs


def test_the_settings_are_frozen(tmp_path):
    with pytest.raises(dataclasses.FrozenInstanceError):
        load(tmp_path).page_max = 1


def test_the_app_keeps_its_settings_and_fills_app_config_from_them(app):
    ours = settings.current()
    assert ours is settings.of(app)
    for field in dataclasses.fields(ours):
        value = getattr(ours, field.name)
        expected = str(value) if isinstance(value, Path) else value
        if field.name != "blob_store_override":
            assert app.config[settings.spec_of(field).key] == expected, field.name
    assert app.config["BLOB_STORE"] == ours.blob_store and app.config["API_TITLE"] == "Lateral"
    assert app.config["TESTING"] is True  # an override that is no setting goes to app.config as it is


def test_the_spatialite_library_setting_is_the_one_sqlite_loads(tmp_path):
    from server import create_app
    from server.core.dialects import SpatiaLiteUnavailable
    from server.core.extensions import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.sqlite'}", "SECRET_KEY": "test",
                      "TESTING": True, "SPATIALITE_LIBRARY_PATH": "no_such_spatialite"})
    with app.app_context():
        try:
            with pytest.raises(SpatiaLiteUnavailable, match="no_such_spatialite"):
                db.session.execute(text("SELECT 1"))
        finally:
            db.session.remove()
            db.engine.dispose()


def test_docs_deploy_lists_every_setting_with_its_default_and_meaning():
    """docs/deploy.md's table is the object's: a setting added, renamed or changed shows here."""
    doc = (REPO_ROOT / "docs" / "deploy.md").read_text()
    table = doc.split("| variable | default | meaning |\n| --- | --- | --- |\n", 1)[1].split("\n\n", 1)[0]
    rows = [tuple(cell.strip().strip("`") for cell in line.strip().strip("|").split(" | "))
            for line in table.splitlines()]
    expected = settings.variables()
    assert rows == expected, "docs/deploy.md should list:\n" + "\n".join(
        f"| `{name}` | {default} | {meaning} |" for name, default, meaning in expected)
