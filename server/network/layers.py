"""The feature layers Lateral keeps, each described once.

A ``Layer`` ties a URL name to its model, its properties contract, the geometry it
takes, the attributes one may filter on, the foreign keys to check and who may write
(``write_roles``, ``authors_own``: its routes declare them as their access); and to
what the rest of the system does with it: the rules engine's input it feeds (``rules``,
which also makes it checked on save), whether field devices pull it and inspectors may
edit it (``pull_order``, ``field_editable``, ``field_inputs``), how maps draw it
(``style``) and which part of the demo city fills it (``demo``).

Every consumer reads this registry: the feature API, OGC API – Features, vector
tiles, exports, imports, the rules engine's loader and on-save check, field sync, the
survey map and the field app (both through ``GET /api/v1/layers``), and the demo
loader. Adding a layer is a model, its migration, its properties schema and one entry
here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gis import rules as engine
from server.core.access.roles import FIELD, SUPERINTENDENT, SUPERVISORS
from server.network import models, schemas

#: Who edits the network from the office.
NETWORK_EDITORS = SUPERVISORS
#: Who writes the layers inspectors fill in the field.
FIELD_WRITERS = FIELD


@dataclass(frozen=True)
class RulesInput:
    """How the rules engine sees a layer: the ``gis.rules.Network`` attribute it fills
    and the engine's dataclass for one feature."""

    attr: str
    feature: type


@dataclass(frozen=True)
class MapStyle:
    """How the survey map and the field app draw a layer.

    Attributes:
        label: The name in the map's layer switcher and legend.
        colour: ``#rrggbb``.
        kind: ``"area"``, ``"line"``, ``"dash"`` (a dashed line) or ``"point"``.
        on: Drawn when the survey map opens (the user may switch it).
        z: Drawing order, bottom (low) to top.
        label_field: The property maps write along each feature (a street's name), from
            ``label_zoom`` in, where the labels fit between the lots; None: no labels.
        label_zoom: The web-map zoom level from which labels are written.
    """

    label: str
    colour: str
    kind: str
    on: bool
    z: int
    label_field: str | None = None
    label_zoom: int = 16


@dataclass(frozen=True)
class AuthorsOwn:
    """A layer whose features only their author changes, or one of ``edit_any``.

    Attributes:
        edit_any: The roles that change any feature; the layer's other writers change
            only their own (the service holds them to it).
        says: The security matrix's note on what "own" means here.
    """

    edit_any: frozenset[str]
    says: str


@dataclass(frozen=True)
class FieldInput:
    """One property the field app's correction form offers for a layer."""

    id: str
    prompt: str
    type: str  # "number" or "bool"
    min: float | None = None
    max: float | None = None
    step: float | None = None


@dataclass(frozen=True)
class Layer:
    name: str  # URL segment, e.g. "tracer-wires"
    subject: str  # singular, used in audit rows, violation keys and messages
    model: Any  # a mapped class (its columns are read by name: id, geom, __table__)
    properties: type[schemas.PropertiesSchema]
    geometry_types: tuple[str, ...]
    stored_type: str
    filters: tuple[str, ...]
    references: dict[str, type] = field(default_factory=dict)
    write_roles: frozenset[str] = NETWORK_EDITORS  # who adds, changes and deletes its features
    authors_own: AuthorsOwn | None = None  # writers outside its ``edit_any`` change only their own
    rules: RulesInput | None = None
    pull_order: int | None = None  # position in a field device's snapshot pull; None: not pulled
    field_editable: bool = False  # inspectors may edit it from the field (sync feature_edit)
    field_inputs: tuple[FieldInput, ...] = ()
    style: MapStyle | None = None
    demo: str | None = None  # the ``server.demo.city.DemoCity`` attribute holding its rows
    #: The columns from a row to the parcel it serves, each a reference to the next layer's
    #: row (a tap: its lateral, then the lateral's parcel); () for the shared network.
    parcel_path: tuple[str, ...] = ()
    #: The column that says "the same feature" when a file is imported again (beside
    #: ``facility_id``, which any layer having it is keyed on).
    import_key: str | None = None
    #: An import reads Wisconsin's statewide parcel schema when the file has it (wi_parcels).
    imports_wi_parcels: bool = False
    #: An import reads the road centreline schemas counties publish (Wisconsin NG911,
    #: TIGER/Line) when the file has one (wi_streets).
    imports_street_centrelines: bool = False
    #: Its features' dense core frames every map of the city, and an import warns of one far
    #: from the rest (server.network.framing; the parcels).
    frames_city: bool = False
    #: An import gives each row the stored main it sits on (taps).
    imports_snap_to_mains: bool = False
    #: PostGIS keeps a stored web-mercator copy of the geometry for tiles (migration 0006).
    web_mercator_copy: bool = False

    @property
    def title(self) -> str:
        return self.name.replace("-", " ").capitalize()

    @property
    def checked_on_save(self) -> bool:
        """A layer the engine reads is re-checked after every write to it (create,
        update, delete), so its stored violations never lag behind an edit."""
        return self.rules is not None

    @property
    def pulled(self) -> bool:
        return self.pull_order is not None


_POLY = ("Polygon", "MultiPolygon")
_TAP_INPUTS = (FieldInput("clock_position", "Clock position (12 = crown)", "number", 0.5, 12, 0.5),)
_LATERAL_INPUTS = (FieldInput("diameter_in", "Diameter (in)", "number", 1, 24, 0.5),
                   FieldInput("backflow_valve", "Backflow valve", "bool"))

LAYERS: dict[str, Layer] = {
    layer.name: layer
    for layer in (
        Layer("parcels", "parcel", models.Parcel, schemas.ParcelProperties, _POLY, "MULTIPOLYGON",
              ("parcel_number", "user_class", "has_building", "in_service_area", "site_address"),
              rules=RulesInput("parcels", engine.Parcel), pull_order=0, demo="parcels",
              import_key="parcel_number", imports_wi_parcels=True, web_mercator_copy=True, frames_city=True),
        Layer("mains", "main", models.SewerMain, schemas.SewerMainProperties, ("LineString",),
              "LINESTRING", ("facility_id", "material", "kind", "diameter_in"),
              {"from_manhole_id": models.Manhole, "to_manhole_id": models.Manhole},
              rules=RulesInput("mains", engine.SewerMain), pull_order=1, demo="mains",
              style=MapStyle("Mains", "#08519c", "line", on=True, z=1)),
        Layer("manholes", "manhole", models.Manhole, schemas.ManholeProperties, ("Point",), "POINT",
              ("facility_id", "kind"),
              rules=RulesInput("manholes", engine.Manhole), pull_order=4, field_editable=True,
              demo="manholes", style=MapStyle("Manholes", "#252525", "point", on=True, z=4)),
        Layer("laterals", "lateral", models.Lateral, schemas.LateralProperties, ("LineString",),
              "LINESTRING", ("parcel_id", "material", "status", "backflow_valve"),
              {"parcel_id": models.Parcel},
              rules=RulesInput("laterals", engine.Lateral), pull_order=2, field_editable=True,
              field_inputs=_LATERAL_INPUTS, demo="laterals", parcel_path=("parcel_id",),
              style=MapStyle("Laterals", "#8c510a", "line", on=True, z=2)),
        Layer("taps", "tap", models.Tap, schemas.TapProperties, ("Point",), "POINT",
              ("main_id", "lateral_id", "method"),
              {"main_id": models.SewerMain, "lateral_id": models.Lateral},
              rules=RulesInput("taps", engine.Tap), pull_order=3, field_editable=True,
              field_inputs=_TAP_INPUTS, demo="taps", parcel_path=("lateral_id", "parcel_id"),
              imports_snap_to_mains=True,
              style=MapStyle("Taps", "#54278f", "point", on=False, z=5)),
        Layer("tracer-wires", "tracer_wire", models.TracerWire, schemas.TracerWireProperties,
              ("LineString",), "LINESTRING", ("lateral_id",), {"lateral_id": models.Lateral},
              rules=RulesInput("tracer_wires", engine.TracerWire), pull_order=5, field_editable=True,
              demo="tracer_wires", parcel_path=("lateral_id", "parcel_id"),
              style=MapStyle("Tracer wire", "#fd8d3c", "dash", on=False, z=3)),
        Layer("streets", "street", models.Street, schemas.StreetProperties, ("LineString",),
              "LINESTRING", ("name",), pull_order=6, demo="streets", imports_street_centrelines=True,
              style=MapStyle("Streets", "#969696", "line", on=True, z=0, label_field="name")),
        Layer("service-areas", "service_area", models.ServiceArea, schemas.ServiceAreaProperties,
              _POLY, "MULTIPOLYGON", ("name",),
              rules=RulesInput("service_areas", engine.ServiceArea), demo="service_areas",
              style=MapStyle("Service area", "#6baed6", "area", on=False, z=0)),
        Layer("findings", "finding", models.ClearWaterFinding, schemas.ClearWaterFindingProperties,
              ("Point",), "POINT", ("parcel_id", "source", "connected_to_sanitary", "method"),
              {"parcel_id": models.Parcel}, write_roles=FIELD_WRITERS,
              authors_own=AuthorsOwn(frozenset({SUPERINTENDENT}),
                                     "findings they recorded; the superintendent changes any "
                                     "(server/network/findings.py)"),
              demo="findings",
              style=MapStyle("Clear-water findings", "#e6550d", "point", on=True, z=6)),
    )
}


def pulled_layers() -> tuple[Layer, ...]:
    """The layers a field device pulls, in the order of a snapshot."""
    ranked = [(lay.pull_order, lay.name) for lay in LAYERS.values() if lay.pull_order is not None]
    return tuple(LAYERS[name] for _, name in sorted(ranked))


def rules_layers() -> tuple[Layer, ...]:
    """The layers the rules engine reads, in registry order."""
    return tuple(lay for lay in LAYERS.values() if lay.rules is not None)


def styled_layers() -> tuple[Layer, ...]:
    """The layers maps draw, bottom to top."""
    ranked = [(lay.style.z, lay.name) for lay in LAYERS.values() if lay.style is not None]
    return tuple(LAYERS[name] for _, name in sorted(ranked))
