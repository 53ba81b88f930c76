"""The feature layers the API serves, each described once.

A ``Layer`` ties a URL name to its model, its properties contract, the geometry it
takes, the attributes one may filter on, the foreign keys to check and who may write.
Routes, services, exports and the demo loader all read this registry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from server import models
from server.schemas import layers as schemas

NETWORK_EDITORS = frozenset({"superintendent", "admin"})
FIELD_WRITERS = frozenset({"inspector", "superintendent", "admin"})


@dataclass(frozen=True)
class Layer:
    name: str  # URL segment, e.g. "tracer-wires"
    subject: str  # singular, used in audit rows and messages
    model: type
    properties: type[schemas.PropertiesSchema]
    geometry_types: tuple[str, ...]
    stored_type: str
    filters: tuple[str, ...]
    references: dict[str, type] = field(default_factory=dict)
    write_roles: frozenset[str] = NETWORK_EDITORS

    @property
    def title(self) -> str:
        return self.name.replace("-", " ").capitalize()


_POLY = ("Polygon", "MultiPolygon")

LAYERS: dict[str, Layer] = {
    layer.name: layer
    for layer in (
        Layer("parcels", "parcel", models.Parcel, schemas.ParcelProperties, _POLY, "MULTIPOLYGON",
              ("parcel_number", "user_class", "has_building", "in_service_area", "site_address")),
        Layer("mains", "main", models.SewerMain, schemas.SewerMainProperties, ("LineString",),
              "LINESTRING", ("facility_id", "material", "kind", "diameter_in"),
              {"from_manhole_id": models.Manhole, "to_manhole_id": models.Manhole}),
        Layer("manholes", "manhole", models.Manhole, schemas.ManholeProperties, ("Point",), "POINT",
              ("facility_id", "kind")),
        Layer("laterals", "lateral", models.Lateral, schemas.LateralProperties, ("LineString",),
              "LINESTRING", ("parcel_id", "material", "status", "backflow_valve"),
              {"parcel_id": models.Parcel}),
        Layer("taps", "tap", models.Tap, schemas.TapProperties, ("Point",), "POINT",
              ("main_id", "lateral_id", "method"),
              {"main_id": models.SewerMain, "lateral_id": models.Lateral}),
        Layer("tracer-wires", "tracer_wire", models.TracerWire, schemas.TracerWireProperties,
              ("LineString",), "LINESTRING", ("lateral_id",), {"lateral_id": models.Lateral}),
        Layer("service-areas", "service_area", models.ServiceArea, schemas.ServiceAreaProperties,
              _POLY, "MULTIPOLYGON", ("name",)),
        Layer("findings", "finding", models.ClearWaterFinding, schemas.ClearWaterFindingProperties,
              ("Point",), "POINT", ("parcel_id", "source", "connected_to_sanitary", "method"),
              {"parcel_id": models.Parcel}, write_roles=FIELD_WRITERS),
    )
}
