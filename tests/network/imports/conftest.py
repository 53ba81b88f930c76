"""The import command through Flask's CLI runner, in the test's rolled-back transaction."""

from __future__ import annotations

import pytest


@pytest.fixture
def run_import(app):
    """``run_import("parcels", path, "--dry-run")``: the CLI result."""

    def run(*args: str):
        return app.test_cli_runner().invoke(args=["import", *map(str, args)])

    return run
