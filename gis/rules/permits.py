"""The ordinance's permit rules (§§ 315-12E, 315-13): duties of the work's steps, not of
the stored network's shape.

They are registered like every rule, so the rulebook gives their sections, ``GET
/api/v1/rules`` lists them and checklists name them; the permit workflow
(``server/permits/``) enforces them at each step (a tap recorded without an issued tap
permit, a tap scheduled in frozen ground, an inspection before backfill, a connection
under supervision, a capped abandonment). Over the network alone they find nothing: the
network does not record permits.
"""

from __future__ import annotations

from collections.abc import Iterator

from gis.crs import Measurer
from gis.rules.registry import Params, RuleViolation, rule
from gis.rules.view import NetworkView


def _none() -> Iterator[RuleViolation]:
    return iter(())


@rule("TAP-PERMIT", "§ 315-13B(1)",
      "Tapping a public sewer needs the Commission's permit; the kind and size of the connection are the permit's.")
def tap_permit(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-13B(1): a tap recorded in the field without an issued tap permit is refused there."""
    return _none()


@rule("EXCAVATION", "§ 315-13A",
      "An excavation permit before work in the street; barricades and night warning lights; backfill in "
      "compacted layers of at most 6 inches.", backfill_layer_max_in=6)
def excavation(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-13A: the street is opened under an issued permit (the permit workflow)."""
    return _none()


@rule("TAP-FROZEN", "§ 315-13A(3)",
      "No street opening for tapping while the ground is frozen (the rulebook's [frozen_ground] season).")
def tap_frozen(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-13A(3): work is not scheduled in the season (``gis.rulebook.FrozenSeason``)."""
    return _none()


@rule("LATERAL-INSPECT", "§ 315-13C(2)",
      "A building sewer is inspected on completion of pipe placement, before backfilling; tested before or "
      "after backfilling.")
def lateral_inspect(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-13C(2): the permit's inspection before backfill writes the as-built."""
    return _none()


@rule("CONNECT-SUPERVISED", "§ 315-13E",
      "The owner notifies the Clerk-Treasurer when ready; the connection is made under the Commission's "
      "supervision.")
def connect_supervised(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-13E: a permit is connected by the inspector who supervised it."""
    return _none()


@rule("ABANDON-CAP", "§ 315-12E",
      "Permanently vacated premises: the water service and the lateral are capped on the lot, under the City's "
      "supervision.")
def abandon_cap(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-12E: an abandonment permit's inspection marks the lateral abandoned, kept with its date."""
    return _none()
