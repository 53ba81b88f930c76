"""Running the rules over a network."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import fields, replace
from datetime import date

from gis.crs import Measurer
from gis.rulebook import Rulebook
from gis.rules.network import Feature, Network
from gis.rules.registry import RuleViolation, Subject, get_rule, registered_rules
from gis.rules.view import NetworkView


def run_rules(
    network: Network,
    rulebook: Rulebook,
    only: Iterable[str] | None = None,
    subjects: Iterable[Subject] | None = None,
    measurer: Measurer | None = None,
    on_rule: Callable[[int, int, str], None] | None = None,
) -> list[RuleViolation]:
    """Check a network against the ordinance's field rules.

    Args:
        network: The whole system, or a saved feature plus the features near it.
        rulebook: The municipality's numbers.
        only: Rule ids to run (all registered rules when None).
        subjects: ``(layer, id)`` pairs, e.g. ``[("tap", 17)]``: keep only the
            violations that involve one of them ("on save of one feature").
        measurer: Overrides the rulebook's measurement CRS (tests, benchmarks).
        on_rule: Called as ``on_rule(done, total, rule_id)`` before each rule is
            checked (``done`` rules finished of ``total``), so a caller can show progress.

    Returns:
        Violations ordered by rule (registration order) then key: the same input
        always gives the same list.
    """
    measurer = measurer or Measurer(rulebook.measurement_crs)
    rules = list(registered_rules()) if only is None else [get_rule(r) for r in only]
    wanted = None if subjects is None else {(layer, ident) for layer, ident in subjects}
    view = NetworkView(located(network), measurer)
    found: list[RuleViolation] = []
    built = _built_on(view.network)
    for done, rule in enumerate(rules):
        if on_rule is not None:
            on_rule(done, len(rules), rule.id)
        batch = rule.check(view, rule.params(rulebook), measurer)
        if wanted is not None:
            batch = (v for v in batch if v.involves(wanted))
        effective = rule.effective(rulebook)
        if effective is not None:
            batch = (_as_of(v, effective, built) for v in batch)
        found.extend(sorted(batch, key=lambda v: v.key))
    return found


def _built_on(network: Network) -> dict[Subject, tuple[date, str]]:
    """When each feature was built, where recorded: ``(first possible day, as written)``.

    A main records only its year: it was built no earlier than Jan 1 of it, and counts
    as built before a rule only if that whole year is.
    """
    out: dict[Subject, tuple[date, str]] = {}
    for layer, features in (("tap", network.taps), ("lateral", network.laterals)):
        for f in features:
            if f.installed_on is not None:
                out[(layer, f.id)] = (f.installed_on, f.installed_on.isoformat())
    for m in network.mains:
        year = getattr(m, "install_year", None)
        if year is not None:
            out[("main", m.id)] = (date(int(year), 12, 31), f"in {int(year)}")
    return out


def _as_of(v: RuleViolation, effective: date, built: dict[Subject, tuple[date, str]]) -> RuleViolation:
    """``v`` marked as pre-dating the rule when every feature of its primary subject's
    layer (both taps of a spacing pair; the tap, not its main, for a joint) was built
    before ``effective``. An unrecorded build date exempts nothing."""
    layer = v.subjects[0][0]
    governed = [s for s in v.subjects if s[0] == layer]
    dates = [d for s in governed if (d := built.get(s)) is not None]
    if not governed or len(dates) < len(governed) or any(d[0] >= effective for d in dates):
        return v
    names = "; ".join(f"{s[0]} {s[1]} installed {d[1]}" for s, d in zip(governed, dates, strict=True))
    return replace(v, predates=f"{names}, before {v.section} took effect on {effective.isoformat()}")


def located(network: Network) -> Network:
    """The network without features that have no geometry (a data gap: not checked)."""

    def has_place(feature: Feature) -> bool:
        geom = feature.geometry
        return geom is not None and not geom.is_empty

    layers = {f.name: getattr(network, f.name) for f in fields(network)}
    if all(has_place(feat) for feats in layers.values() for feat in feats):
        return network
    return Network(**{name: [f for f in feats if has_place(f)] for name, feats in layers.items()})


def related_subjects(network: Network, subject: Subject) -> set[Subject]:
    """A saved feature and the features whose violations its edit can open or close.

    Spacing and joint violations name taps, not their main; backflow and SDR ones name
    the lateral, not its parcel. When the server re-checks a saved main, lateral,
    parcel or wire, it passes these as ``subjects`` so those violations are included.

    Args:
        network: The small network loaded around the saved feature.
        subject: ``(layer, id)`` of the saved feature.
    """
    layer, ident = subject
    related = {subject}
    if layer == "main":
        related |= {("tap", t.id) for t in network.taps if t.main_id == ident}
    elif layer == "parcel":
        laterals = {lat.id for lat in network.laterals if lat.parcel_id == ident}
        related |= {("lateral", i) for i in laterals}
        related |= {("tap", t.id) for t in network.taps if t.lateral_id in laterals}
    elif layer == "lateral":
        related |= {("tap", t.id) for t in network.taps if t.lateral_id == ident}
    elif layer == "tracer_wire":
        related |= {("lateral", w.lateral_id) for w in network.tracer_wires if w.id == ident}
    return related
