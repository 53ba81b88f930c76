"""Fixtures that more than one test package uses, registered once in ``tests/conftest.py``.

A package's own ``conftest.py`` keeps the fixtures only it uses (and may override one of
these by name: ``tests/field`` has its own ``parcel``, a bare parcel's id). Helpers that
are plain functions are in the other modules of ``tests/support``.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from server.core.extensions import db
from server.field.checklist_templates import load_templates
from server.network.models import Parcel
from server.rules.models import Violation
from tests.support.browser import CHROMIUM, LAUNCH_ARGS
from tests.support.env import STRICT, unavailable
from tests.support.notices import add_parcel, add_violation, draft_one, walk
from tests.support.office import Office

# ------------------------------------------------------------------ checklists


@pytest.fixture
def templates(app):
    """The checklist files, loaded into this test's transaction."""
    load_templates()
    db.session.commit()


# --------------------------------------------------------------------- notices


@pytest.fixture
def parcel(app) -> Parcel:
    """A parcel with an owner and a mailing address (a notice can be drafted for it)."""
    return add_parcel()


@pytest.fixture
def violation(parcel) -> Violation:
    return add_violation(parcel)


@pytest.fixture
def notice_in(client, auth, violation):
    """``notice_in("delivered")`` drafts the parcel's notice and walks it there."""

    def make(state: str) -> dict:
        notice = draft_one(client, auth)
        return walk(client, auth, notice["id"], state)

    return make


# -------------------------------------------------------------------------- S3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _s3_unavailable(reason: str) -> None:
    if STRICT:
        pytest.fail(f"LATERAL_STRICT=1 and the S3 backend cannot be tested: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def moto_endpoint():
    """URL of a moto_server subprocess on 127.0.0.1, stopped at the end of the session."""
    exe = Path(sys.executable).with_name("moto_server")
    if not exe.exists():
        _s3_unavailable(f"{exe} is not installed")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [str(exe), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(url, timeout=1).close()
            break
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                _s3_unavailable(f"moto_server did not answer on {url}")
            time.sleep(0.1)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


# --------------------------------------------------------------------- office


@pytest.fixture
def office(client):
    """``office("superintendent1")``: a logged-in session."""
    return lambda username: Office(client, username)


# --------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def chromium():
    """One headless Debian Chromium for the session."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed")
    path = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if not path:
        unavailable("Debian's chromium is not installed (apt-get install chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=LAUNCH_ARGS)
        yield browser
        browser.close()
