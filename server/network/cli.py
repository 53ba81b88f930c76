"""``flask --app server export LAYER FORMAT PATH``: a layer (or permits) to a GIS file on disk."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from flask.cli import with_appcontext

from server.core.access.roles import ADMIN
from server.core.transaction import transaction
from server.network.exports import FORMATS
from server.network.layers import LAYERS


def init_app(app) -> None:
    app.cli.add_command(export_command)
    app.cli.add_command(import_command)


@click.command("export")
@click.argument("layer")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(list(FORMATS)))
@click.argument("path", type=click.Path(dir_okay=False, writable=True, path_type=Path))
@click.option("--bbox", default=None, metavar="MINLON,MINLAT,MAXLON,MAXLAT", help="Only features in this box.")
@with_appcontext
def export_command(layer, fmt, path, bbox):
    """Write LAYER (a layer, or another domain's collection such as permits) as FORMAT
    (gpkg, shp.zip, csv, geojson) to PATH. Whoever runs the command on the server reads
    everything, as an administrator does."""
    from server.network.exports import collection_names, write_named_export

    if layer not in (names := collection_names()):
        raise click.BadParameter(f"{layer!r} is not one of {', '.join(names)}", param_hint="LAYER")

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
    count = write_named_export(layer, fmt, path, ADMIN, box)
    click.echo(f"wrote {count:,} {layer} to {path}")


# ``flask --app server import LAYER FILE``: a utility's or county's GIS file into one layer.


def _track(items):
    with click.progressbar(items, label="Checking features", file=sys.stderr, show_pos=True) as bar:
        yield from bar


@click.command("import")
@click.argument("layer", type=click.Choice(sorted(LAYERS)))
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@click.option("--map", "mapping", multiple=True, metavar="SRC=DEST",
              help="Source field SRC fills our column DEST (repeatable; several SRC for one DEST are joined).")
def import_command(layer, file, dry_run, mapping):
    """Import FILE (GeoJSON, zipped Shapefile, GeoPackage …) into LAYER, reprojected from its CRS.

    The Wisconsin statewide parcel schema (PARCELID, OWNERNME1, PSTLADRESS, …) needs no
    --map. A parcel whose number is stored already is updated where it differs. A file
    with any feature that does not fit imports nothing and says why.
    """
    from server.network.imports import ImportFailed, import_layer, parse_map

    # A dry run writes nothing: it need not wait for, or hold, SQLite's write lock while
    # the file is checked.
    run = import_layer if dry_run else transaction(import_layer)
    try:
        report = run(file, layer, parse_map(mapping), dry_run=dry_run, track=_track)
    except ImportFailed as exc:
        raise click.ClickException(str(exc)) from None
    verb = "would import" if dry_run else "imported"
    click.echo(f"{verb} {report.read} features of {file} ({report.schema}, from {report.source_crs}) into "
               f"{report.layer}: {report.new} new, {report.updated} updated, {report.unchanged} unchanged"
               + (" (dry run: nothing written)" if dry_run else ""))
    if report.ignored_fields:
        click.echo(f"fields not imported: {', '.join(report.ignored_fields)}")
    for warning in report.warnings:
        click.echo(f"warning: {warning}")
