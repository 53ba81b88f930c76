"""docs/deploy.md's environment file, read as systemd reads it (issue 31, item 4).

systemd's ``EnvironmentFile=`` keeps a comment after a value as part of the value. The
guide's file is written here line by line and read with systemd's own parser (its
environment.d generator shares ``EnvironmentFile=``'s reader) and with Lateral's
(``server/operations/envfile.py``, what ``doctor --env-file`` uses): both must give the
values the guide means, and doctor must refuse a value carrying a comment.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from server.core import settings
from server.operations.envfile import commented_values, parse_environment, read_environment_file
from tests.support.env import REPO_ROOT, unavailable

GENERATOR = Path("/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator")
DOC = REPO_ROOT / "docs/deploy.md"
SECRET = "0123456789abcdef" * 4
# A line as main's guide had it, and what systemd made of it.
COMMENTED = "LATERAL_RULEBOOK=arcadia        # or the path to the city's own rulebook .toml"


def guide_environment_file() -> list[str]:
    """The lines of the guide's ``/etc/lateral/lateral.env`` block, the secret filled in."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("### Settings: `/etc/lateral/lateral.env`"):]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [re.sub(r"^SECRET_KEY=.*", f"SECRET_KEY={SECRET}", line) for line in block.splitlines()]


def systemd_reads(lines: list[str], tmp_path: Path) -> dict[str, str]:
    """What systemd's own environment-file parser makes of ``lines``."""
    if not GENERATOR.exists() or shutil.which("env") is None:
        unavailable(f"systemd's environment generator is not installed ({GENERATOR})")
    config = tmp_path / "xdg"
    (config / "environment.d").mkdir(parents=True)
    (config / "environment.d" / "50-lateral.conf").write_text("\n".join(lines) + "\n")
    out = subprocess.run(["env", "-i", f"XDG_CONFIG_HOME={config}", str(GENERATOR)],
                         check=True, capture_output=True, text=True).stdout
    pairs = dict(shlex.split(line)[0].split("=", 1) for line in out.splitlines() if line)
    names = {line.split("=", 1)[0].strip() for line in lines if "=" in line and not line.lstrip().startswith("#")}
    return {key: value for key, value in pairs.items() if key in names}


def test_systemd_reads_the_guides_file_as_the_guide_means_it(tmp_path):
    lines = guide_environment_file()
    path = tmp_path / "lateral.env"
    with path.open("w") as f:
        for line in lines:  # line by line, as an administrator copies it
            f.write(line + "\n")

    by_systemd = systemd_reads(lines, tmp_path)

    assert read_environment_file(path) == by_systemd
    assert by_systemd == {
        "DATABASE_URL": "postgresql+psycopg://lateral@/lateral", "SECRET_KEY": SECRET,
        "LATERAL_BEHIND_PROXY": "1", "SESSION_COOKIE_SECURE": "1", "LATERAL_RULEBOOK": "arcadia",
        "BLOB_STORE": "local", "BLOB_ROOT": "/var/lib/lateral/blobs", "TUS_STAGING_DIR": "/var/lib/lateral/tus"}
    assert commented_values(by_systemd) == {}
    lateral = settings.load(by_systemd, {}, instance_path=str(tmp_path / "instance"), production=True)
    assert lateral.behind_proxy and lateral.session_cookie_secure and lateral.blob_backend == "local"


@pytest.mark.parametrize("line", [
    COMMENTED,
    "LATERAL_BEHIND_PROXY=1          # nginx in front",
    "BLOB_STORE=local                # photos: local folder, or s3 (below)",
    'BLOB_ROOT="/var/lib/lateral/blobs" # quoted, then a comment',
    "SECRET_KEY=ab\\#cd",
    "  LATERAL_PAGE_MAX = 5000   ",
    "LATERAL_BASEMAP_ATTRIBUTION='© the city; # not a comment'",
    "# a comment line",
    "; another",
])
def test_lateral_reads_a_line_as_systemd_does(line, tmp_path):
    assert parse_environment(line + "\n") == systemd_reads([line], tmp_path)


def test_systemd_keeps_a_trailing_comment_in_the_value(tmp_path):
    assert systemd_reads([COMMENTED], tmp_path) == {
        "LATERAL_RULEBOOK": "arcadia        # or the path to the city's own rulebook .toml"}


@pytest.fixture
def service_environment(monkeypatch):
    """doctor --env-file sets the file's variables in its own process: keep them from the next test."""
    monkeypatch.setattr(os, "environ", dict(os.environ))


def _doctor(app, env_file: Path):
    return app.test_cli_runner().invoke(args=["doctor", "--env-file", str(env_file)])


def test_doctor_refuses_a_value_that_carries_a_comment(app, tmp_path, service_environment):
    env_file = tmp_path / "lateral.env"
    env_file.write_text(f"DATABASE_URL=sqlite:///{tmp_path / 'lateral.sqlite'}\nSECRET_KEY={SECRET}\n"
                        f"{COMMENTED}\n")

    result = _doctor(app, env_file)

    assert result.exit_code == 1
    assert "PROBLEM  environment file: systemd keeps a comment after a value as part of the value: " \
           "LATERAL_RULEBOOK=\"arcadia        # or the path" in result.output
    assert "PROBLEM  settings: the service would not start" in result.output


def test_doctor_checks_the_files_settings_not_the_shells(app, tmp_path, service_environment):
    env_file = tmp_path / "lateral.env"
    env_file.write_text(f"DATABASE_URL=sqlite:///{tmp_path / 'lateral.sqlite'}\nSECRET_KEY={SECRET}\n"
                        "LATERAL_RULEBOOK=arcadia\n")
    os.environ["SESSION_COOKIE_SECURE"] = "1"  # in the shell, not in the file: the service lacks it

    result = _doctor(app, env_file)

    assert "ok       environment file" in result.output
    assert "PROBLEM  secure cookies: The log-in cookie is not marked Secure" in result.output
