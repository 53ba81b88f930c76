"""Where the tests find the repository and ``../shared``, and strict mode.

``../shared`` (real data, the ordinance) is found from the repository root; where it is
absent, tests that need it skip with a reason. CI always has it. In strict mode
(``LATERAL_STRICT=1``, as CI runs) a test that cannot reach its database, browser or tool
fails instead of skipping.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_DIR = REPO_ROOT.parent / "shared"
STRICT = os.environ.get("LATERAL_STRICT") == "1"


def need_shared(*parts: str) -> Path:
    """Path inside ../shared, or skip the calling test with the reason."""
    path = SHARED_DIR.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared is laid beside the repo in CI)")
    return path


def unavailable(reason: str):
    """Skip the calling test with ``reason``; in strict mode, fail it."""
    if STRICT:
        pytest.fail(f"strict mode: {reason}", pytrace=False)
    pytest.skip(reason)
