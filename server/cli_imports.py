"""``flask --app server import LAYER FILE``: a utility's or county's GIS file into one layer."""

from __future__ import annotations

import sys

import click

from server.extensions import db
from server.layers import LAYERS


def init_app(app) -> None:
    app.cli.add_command(import_command)


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
    from server.services.importing import ImportFailed, import_layer, parse_map

    try:
        report = import_layer(file, layer, parse_map(mapping), dry_run=dry_run, track=_track)
        if dry_run:
            db.session.rollback()
        else:
            db.session.commit()
    except ImportFailed as exc:
        db.session.rollback()
        raise click.ClickException(str(exc)) from None
    verb = "would import" if dry_run else "imported"
    click.echo(f"{verb} {report.read} features of {file} ({report.schema}, from {report.source_crs}) into "
               f"{report.layer}: {report.new} new, {report.updated} updated, {report.unchanged} unchanged"
               + (" (dry run: nothing written)" if dry_run else ""))
    if report.ignored_fields:
        click.echo(f"fields not imported: {', '.join(report.ignored_fields)}")
