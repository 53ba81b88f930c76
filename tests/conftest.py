"""Fixtures shared by every test module.

``../shared`` (real data, the ordinance) is found from the repository root; where it
is absent, tests that need it skip with a reason. CI always has it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = REPO_ROOT.parent / "shared"
STRICT = os.environ.get("LATERAL_STRICT") == "1"


def need_shared(*parts: str) -> Path:
    """Path inside ../shared, or skip the calling test with the reason."""
    path = SHARED_DIR.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared is laid beside the repo in CI)")
    return path


@pytest.fixture(scope="session")
def realdata() -> Path:
    """The ../shared/realdata folder."""
    return need_shared("realdata")
