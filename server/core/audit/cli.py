"""``flask --app server audit verify``: is the audit trail as it was written?"""

from __future__ import annotations

import click

from server.core.audit import trail as audit
from server.core.audit.anchors import read_anchors
from server.core.extensions import db


def init_app(app) -> None:
    app.cli.add_command(audit_cli)


@click.group("audit", help="The audit trail.")
def audit_cli():
    pass


@audit_cli.command("verify")
def verify():
    """Walk the audit hash chain; name the first row that does not hold (exit 1)."""
    anchors = read_anchors()
    report = audit.verify(db.session, anchors={a.rows: a.head for a in anchors})
    db.session.rollback()
    if not report.intact:
        raise click.ClickException(
            f"audit chain broken at row {report.broken_id}: it {report.reason} "
            f"({_rows(report.rows)} before it hold)")
    click.echo(f"audit chain intact: {_rows(report.rows)}; head {report.head}; "
               f"{len(anchors)} anchor(s) outside the database agree")
    click.echo("Write the head down outside the database (minutes, a letter to the clerk): "
               "a later verify that passes with a different head for these rows means the trail was rewritten.")


def _rows(n: int) -> str:
    return f"{n:,} row" + ("" if n == 1 else "s")
