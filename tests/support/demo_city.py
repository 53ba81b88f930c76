"""The demo city as the pure rules engine reads it: its rows as ``gis.rules`` features."""

from __future__ import annotations

import dataclasses

from gis.rules import (
    Lateral,
    Manhole,
    Network,
    Parcel,
    ServiceArea,
    SewerMain,
    Tap,
    TracerWire,
)

LAYER_CLASSES = {
    "parcels": Parcel,
    "mains": SewerMain,
    "manholes": Manhole,
    "laterals": Lateral,
    "taps": Tap,
    "tracer_wires": TracerWire,
    "service_areas": ServiceArea,
}


def as_network(city) -> Network:
    """Demo rows -> engine features, keeping the columns each dataclass declares."""
    layers = {}
    for layer, cls in LAYER_CLASSES.items():
        names = {f.name for f in dataclasses.fields(cls)}
        layers[layer] = [cls(**{k: v for k, v in row.items() if k in names}) for row in getattr(city, layer)]
    return Network(**layers)
