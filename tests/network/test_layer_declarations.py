"""What the system does with a layer is a field of its ``Layer``, never a test of its name.

A layer's facts (whose rows they are, the parcel a row serves, the key an import matches
on, the stored web-mercator copy) are declared once in ``server/network/layers.py``; these
tests hold the declarations true against the schema, and fail on code that asks for a
layer by name instead.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from server.core.dialects import WEB_MERCATOR_TABLES
from server.network.layers import LAYERS

SERVER = Path(__file__).resolve().parents[2] / "server"


def test_the_web_mercator_copy_is_declared_on_the_layers_migrated_with_it():
    declared = {lay.model.__tablename__ for lay in LAYERS.values() if lay.web_mercator_copy}
    assert declared == set(WEB_MERCATOR_TABLES)


@pytest.mark.parametrize("layer", [lay for lay in LAYERS.values() if lay.parcel_path], ids=lambda lay: lay.name)
def test_a_parcel_path_follows_references_to_a_column_of_parcels(layer):
    at = layer
    for column in layer.parcel_path[:-1]:
        model = at.references[column]
        at = next(lay for lay in LAYERS.values() if lay.model is model)
    last = at.model.__table__.c[layer.parcel_path[-1]]
    assert {fk.column.table.name for fk in last.foreign_keys} == {"parcels"}


@pytest.mark.parametrize("layer", [lay for lay in LAYERS.values() if lay.import_key], ids=lambda lay: lay.name)
def test_an_import_key_is_a_column_of_the_layer(layer):
    assert layer.import_key in layer.model.__table__.c


def _name_tests(path: Path) -> list[str]:
    """``x.name == "taps"``, ``layer_name in ("taps", …)`` and the like, naming a layer."""
    names = set(LAYERS)
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Compare):
            continue
        left = ast.unparse(node.left)
        if not re.search(r"(^|\.|_)(layer|layer_name|name)$", left) or "layer" not in left:
            continue
        for comparator in node.comparators:
            values = comparator.elts if isinstance(comparator, ast.Tuple | ast.List | ast.Set) else [comparator]
            if any(isinstance(v, ast.Constant) and v.value in names for v in values):
                found.append(f"{path.relative_to(SERVER.parent)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_code_asks_for_a_layer_by_its_name():
    found = [hit for path in sorted(SERVER.rglob("*.py")) for hit in _name_tests(path)]
    assert found == [], "declare it as a field of Layer instead:\n" + "\n".join(found)
