"""``flask --app server export LAYER FORMAT PATH``: a layer to a GIS file on disk."""

from __future__ import annotations

from pathlib import Path

import click
from flask.cli import with_appcontext

from server.layers import LAYERS
from server.services.exports import FORMATS


def init_app(app) -> None:
    app.cli.add_command(export_command)


@click.command("export")
@click.argument("layer", type=click.Choice(list(LAYERS)))
@click.argument("fmt", metavar="FORMAT", type=click.Choice(list(FORMATS)))
@click.argument("path", type=click.Path(dir_okay=False, writable=True, path_type=Path))
@click.option("--bbox", default=None, metavar="MINLON,MINLAT,MAXLON,MAXLAT", help="Only features in this box.")
@with_appcontext
def export_command(layer, fmt, path, bbox):
    """Write LAYER as FORMAT (gpkg, shp.zip, csv, geojson) to PATH."""
    from server.services.exports import write_export

    box = None
    if bbox:
        try:
            box = tuple(float(v) for v in bbox.split(","))
        except ValueError:
            raise click.BadParameter("four numbers: minLon,minLat,maxLon,maxLat", param_hint="--bbox") from None
        if len(box) != 4:
            raise click.BadParameter("four numbers: minLon,minLat,maxLon,maxLat", param_hint="--bbox")
    if path.exists():
        raise click.ClickException(f"{path} exists; choose a new file name")
    count = write_export(LAYERS[layer], fmt, path, box)
    click.echo(f"wrote {count:,} {layer} to {path}")
