"""The features the rules read: plain frozen dataclasses, geometry in EPSG:4326.

Field names mirror the server's database rows so a row maps 1:1 onto a dataclass.
Lines run in a meaningful direction: a main from its upstream end, a lateral from the
tap on the main to the building.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Literal, Protocol

from shapely.geometry import LineString, MultiPoint, Point
from shapely.geometry.base import BaseGeometry

FeatureId = int | str


class Feature(Protocol):
    """What every layer's dataclass has: an id and a geometry."""

    @property
    def id(self) -> FeatureId: ...

    @property
    def geometry(self) -> BaseGeometry: ...


@dataclass(frozen=True)
class Parcel:
    id: FeatureId
    parcel_number: str | None
    geometry: BaseGeometry  # Polygon or MultiPolygon
    has_building: bool = False
    in_service_area: bool = False
    has_septic: bool = False
    septic_approved: bool = False

    @property
    def number_or_id(self) -> str:
        """The parcel number people use, else the id."""
        return self.parcel_number or str(self.id)


@dataclass(frozen=True)
class SewerMain:
    id: FeatureId
    geometry: LineString  # first vertex = upstream end
    material: str | None = None  # "PVC", "VCP", "DIP", "HDPE", "RCP", ...
    diameter_in: float | None = None
    segment_length_ft: float | None = None  # pipe length between joints
    kind: Literal["gravity", "pressure"] = "gravity"
    sdr: float | None = None
    cover_ft: float | None = None
    joint_points: MultiPoint | None = None  # joints as surveyed, when recorded
    install_year: int | None = None


@dataclass(frozen=True)
class Manhole:
    id: FeatureId
    geometry: Point
    kind: Literal["manhole", "flushing", "cleanout"] = "manhole"


@dataclass(frozen=True)
class Lateral:
    id: FeatureId
    parcel_id: FeatureId | None
    geometry: LineString  # first vertex at the tap, last vertex at the building
    material: str | None = None
    sdr: float | None = None
    diameter_in: float | None = None
    installed_on: date | None = None
    backflow_valve: bool | None = None
    status: Literal["active", "abandoned", "proposed", "capped"] = "active"
    is_new_or_replacement: bool | None = None


@dataclass(frozen=True)
class Tap:
    id: FeatureId
    main_id: FeatureId
    lateral_id: FeatureId | None
    geometry: Point  # on the main
    method: Literal["saddle", "core", "wye", "tee"] | None = None
    fitting_material: str | None = None
    clock_position: float | None = None  # hours looking downstream; 12.0 = crown
    installed_on: date | None = None


@dataclass(frozen=True)
class TracerWire:
    id: FeatureId
    lateral_id: FeatureId
    geometry: LineString
    gauge_awg: int | None = None
    in_conduit: bool | None = None
    reaches_surface_at_wall: bool | None = None


@dataclass(frozen=True)
class ServiceArea:
    id: FeatureId
    geometry: BaseGeometry


@dataclass
class Network:
    """Everything one rules run looks at: the whole system or one feature's surroundings."""

    parcels: list[Parcel] = field(default_factory=list)
    mains: list[SewerMain] = field(default_factory=list)
    manholes: list[Manhole] = field(default_factory=list)
    laterals: list[Lateral] = field(default_factory=list)
    taps: list[Tap] = field(default_factory=list)
    tracer_wires: list[TracerWire] = field(default_factory=list)
    service_areas: list[ServiceArea] = field(default_factory=list)
