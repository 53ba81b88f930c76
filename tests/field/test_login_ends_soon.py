"""The field app warns a week before its login ends (the token's ``expires_at``, issue 30)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.support.env import REPO_ROOT, unavailable

SCRIPT = """
globalThis.navigator = { onLine: true };
const { loginEndsSoon } = await import(process.argv[1]);
const now = new Date("2026-12-03T12:00:00Z");
const ends = (at) => { const d = loginEndsSoon({ loginEndsAt: at }, now); return d && d.toISOString(); };
console.log(JSON.stringify([ends("2026-12-08T00:00:00+00:00"), ends("2027-02-01T00:00:00+00:00"), ends(null)]));
"""


@pytest.fixture
def node() -> str:
    path = shutil.which("node")
    if path is None:
        unavailable("node is not installed")
    return path


def test_the_app_warns_within_a_week_of_the_logins_end_only(node):
    state = REPO_ROOT / "offline_client" / "web" / "js" / "state.js"
    done = subprocess.run([node, "--input-type=module", "-e", SCRIPT, state.as_uri()], capture_output=True,
                          text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == ["2026-12-08T00:00:00.000Z", None, None]
