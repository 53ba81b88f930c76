"""The layering in ``.importlinter`` holds: CI fails on an import that breaks it.

The contracts (``gis`` is pure, the pure ``server`` packages stay pure, schemas do not
import services, nothing below the routes imports them, no import cycles) are read and
explained in ``docs/architecture.md``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def test_the_import_contracts_hold():
    run = subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo"], cwd=REPO_ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout
