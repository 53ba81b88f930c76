"""``flask --app server rules run``: the ordinance's field rules over the stored network."""

from __future__ import annotations

import click

from server.core.transaction import transaction


def init_app(app) -> None:
    app.cli.add_command(rules_cli)


@click.group("rules", help="The ordinance's field rules over the stored network.")
def rules_cli():
    pass


@rules_cli.command("run")
@click.option("--rule", "rule_ids", multiple=True, metavar="ID", help="Run only this rule (repeatable).")
@transaction
def run_rules_command(rule_ids):
    """Check the whole network; open, keep and resolve violations."""
    from server.rules import run as rules

    try:
        outcome = rules.run_network(only=rule_ids or None)
    except rules.UnknownRule as exc:
        raise click.ClickException(str(exc)) from None
    s = outcome.seconds
    click.echo(
        f"rules run: {outcome.features:,} features, {outcome.found:,} violations found; "
        f"{outcome.opened:,} opened, {outcome.kept:,} kept, {outcome.resolved:,} resolved "
        f"in {s['total']:.1f} s (load {s['load']:.1f}, check {s['check']:.1f}, "
        f"reconcile {s['reconcile']:.1f})"
    )
