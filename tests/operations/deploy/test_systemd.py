"""deploy/systemd: the units pass ``systemd-analyze verify`` and run the commands that exist."""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import REPO_ROOT, unavailable

UNITS = REPO_ROOT / "deploy" / "systemd"
INSTALL_DIR = "/opt/lateral"


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    parser.optionxform = str
    parser.read(UNITS / name)
    return parser


def installed_copy(tmp_path: Path) -> Path:
    """The units with /opt/lateral pointed at this checkout and its virtualenv, as if installed."""
    root = tmp_path / "opt-lateral"
    (root / ".venv").mkdir(parents=True)
    (root / ".venv" / "bin").symlink_to(Path(sys.executable).parent)
    folder = tmp_path / "units"
    folder.mkdir()
    for path in UNITS.iterdir():
        (folder / path.name).write_text(path.read_text().replace(INSTALL_DIR, str(root)))
    return folder


def test_the_units_pass_systemd_analyze_verify(tmp_path):
    if not shutil.which("systemd-analyze"):
        unavailable("systemd-analyze is not installed (apt-get install systemd)")
    folder = installed_copy(tmp_path)
    files = sorted(str(p) for p in folder.iterdir())
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", *files], capture_output=True, text=True,
                            cwd=folder)
    # Any warning (an unknown key, a bad calendar, a missing command) fails, not only errors.
    assert (result.returncode, result.stderr.strip()) == (0, ""), result.stderr


def test_verify_would_catch_a_broken_unit(tmp_path):
    if not shutil.which("systemd-analyze"):
        unavailable("systemd-analyze is not installed (apt-get install systemd)")
    folder = installed_copy(tmp_path)
    broken = folder / "lateral-tick.timer"
    broken.write_text(broken.read_text().replace("OnCalendar=*-*-* 00:30:00", "OnCalendar=every night"))
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", str(broken)], capture_output=True, text=True)
    assert result.returncode != 0 or result.stderr.strip()


def test_the_app_restarts_on_failure_reloads_gracefully_and_logs_to_the_journal():
    service = unit("lateral.service")["Service"]
    assert service["Restart"] == "on-failure"
    assert service["ExecReload"] == "/bin/kill -s HUP $MAINPID"  # gunicorn: new workers, old ones finish
    assert service["Type"] == "notify"  # gunicorn tells systemd when it is ready
    assert "--bind 127.0.0.1:8000" in service["ExecStart"]  # where deploy/nginx/lateral.conf sends requests
    for name in sorted(p.name for p in UNITS.glob("*.service")):
        assert unit(name)["Service"]["StandardOutput"] == "journal", name


@pytest.mark.parametrize("job, command", [("tick", "notices tick"), ("purge-uploads", "photos purge-uploads"),
                                          ("backup", "backup /var/backups/lateral")])
def test_each_timer_starts_its_job_and_the_job_runs_a_lateral_command(job, command):
    timer = unit(f"lateral-{job}.timer")
    assert timer["Timer"]["OnCalendar"] and timer["Timer"]["Persistent"] == "true"
    service = unit(f"lateral-{job}.service")["Service"]
    assert service["Type"] == "oneshot"
    assert service["ExecStart"] == f"{INSTALL_DIR}/.venv/bin/flask --app server {command}"


def test_the_commands_the_timers_run_exist(tmp_path):
    from tests.support.databases import fresh_app

    with fresh_app("spatialite", tmp_path) as app:
        runner = app.test_cli_runner()
        for command in (["notices", "tick", "--help"], ["photos", "purge-uploads", "--help"], ["backup", "--help"]):
            assert runner.invoke(args=command).exit_code == 0, command


def test_the_daily_tick_runs_after_midnight_on_the_citys_clock():
    from gis.rulebook import load_rulebook

    calendar = unit("lateral-tick.timer")["Timer"]["OnCalendar"]
    assert calendar.endswith(" " + load_rulebook("arcadia").time_zone.key)


def test_reload_is_graceful_gunicorn_replaces_its_workers_and_keeps_answering(tmp_path):
    """What ``systemctl reload lateral`` does (ExecReload: HUP to the main process)."""
    import os
    import signal
    import time
    import urllib.request

    from tests.support.databases import fresh_app
    from tests.support.deploy_stack import Gunicorn, app_env

    with fresh_app("spatialite", tmp_path) as app:
        url = app.config["SQLALCHEMY_DATABASE_URI"]
        with Gunicorn(app_env(url, tmp_path), tmp_path / "gunicorn.log") as host:
            health = f"http://127.0.0.1:{host.port}/api/v1/health"

            def booted() -> int:
                return host.log.read_text().count("Booting worker with pid")

            assert booted() == 1
            os.kill(host.process.pid, signal.SIGHUP)
            for _ in range(200):
                if booted() == 2 and "Handling signal: hup" in host.log.read_text():
                    break
                time.sleep(0.05)
            assert booted() == 2  # a new worker with the new code and settings
            # The new worker may still be loading the app: the request waits in the listen
            # queue (never refused), however long a loaded machine takes.
            with urllib.request.urlopen(health, timeout=120) as response:
                assert response.status == 200
            assert host.process.poll() is None  # the same main process: no restart, no dropped socket
