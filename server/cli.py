"""The ``lateral`` console script: the same commands as ``flask --app server``.

Each domain adds its own commands in its ``init_app`` (``server/<domain>/cli.py``).
"""

from __future__ import annotations

from flask.cli import FlaskGroup


def main() -> None:
    """The ``lateral`` console script: the same commands as ``flask --app server``."""
    from server import create_app

    FlaskGroup(create_app=create_app)(prog_name="lateral")
