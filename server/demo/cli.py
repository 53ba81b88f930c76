"""``flask --app server demo seed``: the synthetic demo city, played forward to today."""

from __future__ import annotations

import sys

import click


def init_app(app) -> None:
    app.cli.add_command(demo_cli)


#: The largest demo city `demo seed` plays the survey forward in by default (a rules run over
#: the whole network is the costly part); --living asks for it at any size.
LIVING_MAX_PARCELS = 200_000


@click.group("demo", help="The synthetic demo city around Arcadia, Wisconsin.")
def demo_cli():
    pass


@demo_cli.command("seed")
@click.option("--parcels", default=1200, show_default=True, help="How many parcels to build.")
@click.option("--seed", "rng_seed", default=315, show_default=True, help="Random seed (same seed, same city).")
@click.option("--if-empty", is_flag=True, help="Do nothing when parcels already exist.")
@click.option("--users/--no-users", "with_users", default=True, show_default=True, help="Create the demo logins.")
@click.option("--living/--no-living", default=None,
              help="Play the survey forward to today: assignments, inspections with photos, a rules run, "
                   f"notices in every state. Default: with the demo users, up to {LIVING_MAX_PARCELS:,} parcels.")
def seed(parcels, rng_seed, if_empty, with_users, living):
    """Load the demo city (and demo users) into an empty database."""
    from server.demo import seed as demo
    from server.field.api.photos import blob_store

    if living is None:
        living = with_users and parcels <= LIVING_MAX_PARCELS
    bar = None

    def on_rows(done: int, total: int, layer: str) -> None:
        # A bar on stderr (click draws it only on a terminal), over every row of every layer.
        nonlocal bar
        if total == 0:
            click.echo(f"planning a city of {parcels:,} parcels …", err=True)
            return
        if bar is None:
            bar = click.progressbar(length=total, label=f"demo city, {parcels:,} parcels", file=sys.stderr,
                                    show_pos=True, show_eta=True, item_show_func=lambda item: item)
            bar.__enter__()
        bar.update(done - bar.pos, current_item=layer.replace("_", " "))

    def progress(message: str) -> None:
        nonlocal bar
        if bar is not None:  # the rows are in: close the bar before the next steps speak
            bar.__exit__(None, None, None)
            bar = None
        click.echo(message, err=True)

    try:
        report = demo.seed(parcels=parcels, rng_seed=rng_seed, if_empty=if_empty, with_users=with_users,
                           progress=progress, living=living, blobs=blob_store() if living else None,
                           on_rows=on_rows)
    except demo.DemoError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    click.echo(report)
