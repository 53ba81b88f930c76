"""Rule registry and the violation record every rule produces.

A rule is a function decorated with :func:`rule`; the decorator records its id,
plain-language statement and parameter defaults. The rulebook's ``[rules.ID]`` table
overrides the defaults (and supplies the section), so another city changes numbers,
not code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Required, TypedDict, Unpack

from shapely.geometry.base import BaseGeometry

from gis.crs import Measurer
from gis.rulebook import Rulebook
from gis.rules.network import FeatureId
from gis.rules.view import NetworkView

Subject = tuple[str, FeatureId]
"""``(layer, id)`` of one feature, e.g. ``("tap", 17)``."""

Params = Mapping[str, Any]
"""A rule's parameters: its defaults overridden by the rulebook's ``[rules.ID]`` table
(values as TOML gives them), plus ``rule_id`` and ``section``."""


def _sortable(subject: Subject) -> tuple[str, int, FeatureId, str]:
    layer, ident = subject
    return (layer, 0, ident, "") if isinstance(ident, int) else (layer, 1, 0, str(ident))


def order_subjects(primary: Subject, *others: Subject) -> tuple[Subject, ...]:
    """The primary subject first, the rest sorted, no duplicates."""
    rest = sorted({s for s in others if s != primary}, key=_sortable)
    return (primary, *rest)


@dataclass(frozen=True)
class RuleViolation:
    """One breach of one rule by one set of features.

    Attributes:
        rule_id: Stable rule id, e.g. ``"TAP-SPACING-24IN"``.
        section: Ordinance section from the rulebook, e.g. ``"§ 315-13B(2)"``.
        subjects: ``(layer, id)`` pairs; the first is the primary subject.
        parcel_id: Parcel the breach is charged to, when known.
        evidence: Geometry in EPSG:4326 showing what was measured.
        measured: The measured value in ``unit`` (None where nothing is measured).
        limit: The ordinance's limit in ``unit``.
        unit: ``"in"``, ``"ft"``, ``"o'clock"``, ``"SDR"``, ``"%"`` or ``""``.
        message: Plain-language finding in the ordinance's units, citing the section.
        aspect: Which requirement of a multi-part rule failed (``"cover"``,
            ``"merge"``, ...); empty for single-part rules.
        predates: Empty, or why this is not a violation: every feature the rule
            governs here was built before the rule took effect (the rulebook's
            ``effective`` date), e.g. "tap 7 installed 1984-06-01, before § 315-13B(2)
            took effect on 2009-01-01". Such findings are shown, never noticed.
    """

    rule_id: str
    section: str
    subjects: tuple[Subject, ...]
    parcel_id: FeatureId | None
    evidence: BaseGeometry | None
    measured: float | None
    limit: float | None
    unit: str
    message: str
    aspect: str = ""
    predates: str = ""

    @property
    def key(self) -> str:
        """Stable identity across re-runs: rule, aspect and subjects, not measurements."""
        subjects = ",".join(f"{layer}:{ident}" for layer, ident in self.subjects)
        return f"{self.rule_id}|{self.aspect}|{subjects}"

    def involves(self, subjects: Iterable[Subject]) -> bool:
        """Whether any of ``subjects`` is among this violation's subjects."""
        mine = set(self.subjects)
        return any(s in mine for s in subjects)


Check = Callable[[NetworkView, Params, Measurer], Iterable[RuleViolation]]


@dataclass(frozen=True)
class Rule:
    """A registered field rule.

    Attributes:
        id: Stable rule id from ``ordinance/RULES.md``.
        default_section: Section cited when the rulebook names none.
        statement: What the ordinance requires, in plain words.
        defaults: Parameter defaults; the rulebook's ``[rules.ID]`` overrides them.
        check: ``check(view, params, measurer)`` yielding :class:`RuleViolation`.
    """

    id: str
    default_section: str
    statement: str
    defaults: Mapping[str, Any] = field(default_factory=dict)
    check: Check = field(kw_only=True)

    def section_for(self, rulebook: Rulebook) -> str:
        """The section the rulebook cites for this rule (the default where it names none)."""
        section: str = rulebook.rule(self.id).get("section", self.default_section)
        return section

    def effective(self, rulebook: Rulebook) -> date | None:
        """The day the rule took effect (rulebook ``[rules.ID] effective``), or None
        where the rulebook records none (then nothing is exempt from it)."""
        value = rulebook.rule(self.id).get("effective")
        if value is None or isinstance(value, date):
            return value
        return date.fromisoformat(str(value))

    def params(self, rulebook: Rulebook) -> dict[str, Any]:
        """Defaults overridden by the rulebook, plus ``rule_id`` and ``section``."""
        params = {"rule_id": self.id, "section": self.default_section, **self.defaults}
        params.update(rulebook.rule(self.id))
        return params


_RULES: dict[str, Rule] = {}


def rule(rule_id: str, section: str, statement: str, **defaults: Any) -> Callable[[Check], Check]:
    """Register the decorated ``check(view, params, measurer)`` function as a rule."""

    def register(check: Check) -> Check:
        if rule_id in _RULES:
            raise ValueError(f"rule {rule_id} is registered twice")
        _RULES[rule_id] = Rule(rule_id, section, statement, dict(defaults), check=check)
        return check

    return register


def registered_rules() -> Iterator[Rule]:
    """Every rule, in registration order (the order of output)."""
    return iter(list(_RULES.values()))


def get_rule(rule_id: str) -> Rule:
    """The rule with this id; KeyError names the unknown id."""
    try:
        return _RULES[rule_id]
    except KeyError:
        raise KeyError(f"no rule {rule_id!r}; known: {', '.join(_RULES)}") from None


class ViolationFields(TypedDict, total=False):
    """What a rule says about one breach (see :class:`RuleViolation`); only ``message``
    is required."""

    parcel_id: FeatureId | None
    evidence: BaseGeometry | None
    measured: float | None
    limit: float | None
    unit: str
    message: Required[str]
    aspect: str


def violation(params: Params, primary: Subject, *others: Subject, **fields: Unpack[ViolationFields]) -> RuleViolation:
    """Build a :class:`RuleViolation` for the rule whose ``params`` are given."""
    known = {"parcel_id", "evidence", "measured", "limit", "unit", "message", "aspect"}
    if set(fields) - known:
        raise TypeError(f"unknown violation fields: {sorted(set(fields) - known)}")
    return RuleViolation(
        rule_id=params["rule_id"],
        section=params["section"],
        subjects=order_subjects(primary, *others),
        parcel_id=fields.get("parcel_id"),
        evidence=fields.get("evidence"),
        measured=_float(fields.get("measured")),
        limit=_float(fields.get("limit")),
        unit=fields.get("unit", ""),
        message=fields["message"],
        aspect=fields.get("aspect", ""),
    )


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


def fmt_length(value: float, limit: float) -> str:
    """A measured length to 1 decimal, or 2 where 1 would round onto the limit."""
    text = f"{value:.1f}"
    if float(text) == float(limit) and value != limit:
        text = f"{value:.2f}"
    return text


def fmt_number(value: float) -> str:
    """A limit as the ordinance writes it: 24, 6, 1,000, 0.5."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,g}"
