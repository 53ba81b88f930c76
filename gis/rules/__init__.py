"""The ordinance's field rules as pure functions over plain features (no Flask, no DB).

Typical use::

    from gis.rules import Network, Tap, run_rules
    violations = run_rules(Network(taps=[...], mains=[...]))
"""

from gis.rules import laterals, parcels, permits, pressure, taps  # noqa: F401  (registers the rules)
from gis.rules.engine import related_subjects, run_rules
from gis.rules.network import (
    Lateral,
    Manhole,
    Network,
    Parcel,
    ServiceArea,
    SewerMain,
    Tap,
    TracerWire,
)
from gis.rules.registry import Rule, RuleViolation, get_rule, registered_rules

__all__ = [
    "Lateral",
    "Manhole",
    "Network",
    "Parcel",
    "Rule",
    "RuleViolation",
    "ServiceArea",
    "SewerMain",
    "Tap",
    "TracerWire",
    "get_rule",
    "registered_rules",
    "related_subjects",
    "run_rules",
]
