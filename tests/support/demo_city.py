"""The demo city's plan (``DemoCity``), built once per size, and its rows as the pure rules
engine reads them (``gis.rules`` features)."""

from __future__ import annotations

import dataclasses
from functools import lru_cache

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
from server.demo.city import DemoCity, generate_city

LAYER_CLASSES = {
    "parcels": Parcel,
    "mains": SewerMain,
    "manholes": Manhole,
    "laterals": Lateral,
    "taps": Tap,
    "tracer_wires": TracerWire,
    "service_areas": ServiceArea,
}


@lru_cache(maxsize=4)
def city_of(parcels: int) -> DemoCity:
    """The demo city's plan at ``parcels`` parcels (generated once per size)."""
    return generate_city(parcels)


def as_network(city) -> Network:
    """Demo rows -> engine features, keeping the columns each dataclass declares."""
    layers = {}
    for layer, cls in LAYER_CLASSES.items():
        names = {f.name for f in dataclasses.fields(cls)}
        layers[layer] = [cls(**{k: v for k, v in row.items() if k in names}) for row in getattr(city, layer)]
    return Network(**layers)
