"""The city's sewer network as GIS layers: parcels, mains, manholes, laterals, taps, tracer
wire and clear-water findings.

``layers.LAYERS`` is the one description of a layer; ``features`` reads and writes them
(with the write hooks other domains register), ``imports`` and ``exports`` move them in
and out as GIS files, ``ogc/`` serves them as OGC API – Features and ``tiles/`` as vector
tiles, ``loader`` hands them to the pure rules engine in ``gis.rules``.
"""


def init_app(app, api) -> None:
    from server.network import cli, ogc, tiles
    from server.network.api import exports, features, layers

    api.register_blueprint(layers.blp)
    features.register(api, app)
    exports.register(api, app)
    ogc.init_app(app)
    tiles.init_app(app)
    cli.init_app(app)
