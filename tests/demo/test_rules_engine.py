"""The rules engine, run over the demo city, reports exactly the planted breaks."""

from __future__ import annotations

import dataclasses

import pytest

from gis.rulebook import load_rulebook
from gis.rules import (
    Lateral,
    Manhole,
    Network,
    Parcel,
    ServiceArea,
    SewerMain,
    Tap,
    TracerWire,
    run_rules,
)

ARCADIA = load_rulebook("arcadia")  # the test apps' rulebook; pure code is always told which

LAYER_CLASSES = {
    "parcels": Parcel,
    "mains": SewerMain,
    "manholes": Manhole,
    "laterals": Lateral,
    "taps": Tap,
    "tracer_wires": TracerWire,
    "service_areas": ServiceArea,
}
# Findings are inspection records, not network features; the engine does not read them.
NOT_IN_ENGINE = {"CLEAR-WATER"}


def as_network(city) -> Network:
    """Demo rows -> engine features, keeping the columns each dataclass declares."""
    layers = {}
    for layer, cls in LAYER_CLASSES.items():
        names = {f.name for f in dataclasses.fields(cls)}
        layers[layer] = [cls(**{k: v for k, v in row.items() if k in names}) for row in getattr(city, layer)]
    return Network(**layers)


@pytest.fixture
def reported(city) -> set[tuple[str, str, int]]:
    return {
        (v.rule_id, layer, ident)
        for v in run_rules(as_network(city), ARCADIA)
        for layer, ident in v.subjects
        if layer != "main" or v.rule_id == "PRESSURE-SEWER"
    }


def test_engine_reports_exactly_the_planted_breaks(city, reported):
    planted = {d for d in city.deliberate if d[0] not in NOT_IN_ENGINE}
    assert reported == planted
