"""Fixtures that more than one test package uses, registered once in ``tests/conftest.py``.

A package's own ``conftest.py`` keeps the fixtures only it uses. Each fixture name is
defined once under ``tests/`` (``tests/test_layout.py``): a fixture is never overridden by
another of the same name with another meaning. Helpers that are plain functions are in the
other modules of ``tests/support``.
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
from server.demo import seed as demo
from server.demo.city import DemoCity
from server.field.checklist_templates import load_templates
from server.network.models import Parcel
from server.rules.models import Violation
from tests.support.browser import CHROMIUM, LAUNCH_ARGS
from tests.support.databases import ENGINES
from tests.support.demo_city import city_of
from tests.support.env import STRICT, unavailable
from tests.support.live_city import serve_city
from tests.support.notices import add_parcel, add_violation, draft_one, walk
from tests.support.office import Office

# ------------------------------------------------------------------ checklists


@pytest.fixture
def templates(app):
    """The checklist files, loaded into this test's transaction."""
    load_templates()
    db.session.commit()


# ------------------------------------------------------------------- demo city


@pytest.fixture
def seeded_city(app):
    """The demo city at 200 parcels (no logins), seeded into the test's transaction."""
    demo.seed(parcels=200, with_users=False)


@pytest.fixture
def seeded_city_300(app) -> DemoCity:
    """The demo city at 300 parcels (no logins), loaded into the test's database (rolled back
    after); its plan, to compare with what the database then holds."""
    demo.seed(parcels=300, with_users=False)
    return city_of(300)


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


@pytest.fixture(scope="module", params=ENGINES)
def own_served_city(request, tmp_path_factory):
    """A test module's own 300-parcel demo city served on each engine: its tests assign work
    and change logins, which the tests sharing a package's city must not see."""
    with serve_city(request.param, tmp_path_factory.mktemp(f"own-{request.param}")) as city:
        yield city
