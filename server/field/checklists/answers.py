"""Checking answers against a template, and finding the answers that fail a rule.

Answers are ``{item_id: value}``; a repeated group's value is a list of
``{item_id: value}`` entries. Field paths in errors are dotted
(``sources.0.photo``) so the tablet can point at the item.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from gis.geojson import GeometryError, parse_geometry
from server.field.checklists.templates import YES_NO

TEXT_MAX = 2000
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class AnswerError(ValueError):
    """The answers break the template; ``fields`` maps dotted item paths to messages."""

    def __init__(self, fields: dict[str, list[str]]):
        super().__init__("; ".join(f"{k}: {', '.join(v)}" for k, v in fields.items()))
        self.fields = fields


@dataclass(frozen=True)
class Failure:
    """One answer that fails the rule its item evidences."""

    item_id: str  # dotted path, e.g. "sources.1.connected_to_sanitary"
    rule_id: str
    section: str | None
    message: str
    value: object


def _active(item: dict, answers: dict) -> bool:
    when = item.get("when")
    return when is None or answers.get(when["item"]) == when["equals"]


def check_answers(template: dict, answers, photo_digests: set[str]) -> None:
    """Raise :class:`AnswerError` unless ``answers`` fill in ``template`` properly.

    Args:
        template: A checked template (see ``templates.check_template``).
        answers: What the tablet sent.
        photo_digests: SHA-256 digests the inspection lists in ``photos``; every
            photo answer must be among them.
    """
    errors: dict[str, list[str]] = {}
    if not isinstance(answers, dict):
        raise AnswerError({"answers": ["must be an object of item id to answer"]})
    _check_level(template["items"], answers, photo_digests, "", errors)
    if errors:
        raise AnswerError(errors)


def _check_level(items: list[dict], answers: dict, digests: set[str], prefix: str, errors: dict) -> None:
    by_id = {item["id"]: item for item in items}
    for key in answers:
        if key not in by_id:
            errors.setdefault(prefix + str(key), []).append("not an item of this checklist")
    for item in items:
        path = prefix + item["id"]
        present = answers.get(item["id"]) is not None
        if not _active(item, answers):
            if present:
                errors.setdefault(path, []).append(
                    f"answered, but only asked when {item['when']['item']} is {item['when']['equals']!r}")
            continue
        if not present:
            if item.get("required", True) and item["type"] != "group":
                errors.setdefault(path, []).append("required")
            continue
        problem = _check_value(item, answers[item["id"]], digests, path, errors)
        if problem:
            errors.setdefault(path, []).append(problem)


def _check_value(item: dict, value, digests: set[str], path: str, errors: dict) -> str | None:
    kind = item["type"]
    if kind == "yes_no":
        allowed = YES_NO if item.get("allow_na") else YES_NO[:2]
        return None if value in allowed else f"must be one of {', '.join(allowed)}"
    if kind == "choice":
        return None if value in item["options"] else f"must be one of {', '.join(item['options'])}"
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return "must be a number"
        if ("min" in item and value < item["min"]) or ("max" in item and value > item["max"]):
            return f"must be between {item.get('min')} and {item.get('max')} {item.get('unit', '')}".rstrip()
        return None
    if kind == "text":
        if isinstance(value, str) and len(value) <= TEXT_MAX:
            return None
        return f"must be text of at most {TEXT_MAX} characters"
    if kind == "photo":
        return _check_photos(item, value, digests)
    if kind == "location":
        try:
            parse_geometry(value, ("Point",))
        except GeometryError as exc:
            return f"must be a GeoJSON Point ({exc})"
        return None
    if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
        return "must be a list of entries, each an object of item id to answer"
    for index, entry in enumerate(value):
        _check_level(item["items"], entry, digests, f"{path}.{index}.", errors)
    return None


def _check_photos(item: dict, value, digests: set[str]) -> str | None:
    if not isinstance(value, list) or not all(isinstance(v, str) and _SHA256.match(v) for v in value):
        return "must be a list of SHA-256 digests (64 lower-case hex characters)"
    if len(value) < item.get("min_count", 0):
        return f"needs at least {item['min_count']} photo(s)"
    missing = [v for v in value if v not in digests]
    return f"photos not listed in the inspection's photos: {', '.join(missing)}" if missing else None


def evaluate(template: dict, answers: dict) -> list[Failure]:
    """The answers (already checked) that fail the rule their item evidences."""
    failures: list[Failure] = []
    _evaluate_level(template["items"], answers, "", failures)
    return failures


def _evaluate_level(items: list[dict], answers: dict, prefix: str, failures: list[Failure]) -> None:
    for item in items:
        value = answers.get(item["id"])
        if value is None or not _active(item, answers):
            continue
        if item["type"] == "group":
            for index, entry in enumerate(value):
                _evaluate_level(item["items"], entry, f"{prefix}{item['id']}.{index}.", failures)
            continue
        rule_id = item.get("rule") or answers.get(item.get("rule_from", ""))
        if rule_id and not passes(item, value):
            message = item.get("fail_message") or f"{item['prompt']}: answered {_number(value)}{_unit(item)}"
            if (allowed := requirement(item)) is not None:
                message = f"{message}; {allowed}"
            failures.append(Failure(prefix + item["id"], rule_id, item.get("section"), message, value))


def _unit(item: dict) -> str:
    return f" {item['unit']}" if item.get("unit") else ""


def _number(value) -> str:
    """6.0 as "6", 1.5 as "1.5"; anything else as it is."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def limit_text(item: dict) -> str | None:
    """The values a number item passes with, in words ("at most 6 in"); None without a limit."""
    if item.get("type") != "number":
        return None
    unit = _unit(item)
    if "pass_ranges" in item:
        spans = " or ".join(f"{_number(lo)} to {_number(hi)}" for lo, hi in item["pass_ranges"])
        return f"{spans}{unit}"
    low, high = item.get("pass_min"), item.get("pass_max")
    if low is not None and low == high:
        return f"exactly {_number(low)}{unit}"
    if low is not None and high is not None:
        return f"between {_number(low)} and {_number(high)}{unit}"
    if low is not None:
        return f"at least {_number(low)}{unit}"
    if high is not None:
        return f"at most {_number(high)}{unit}"
    return None


def requirement(item: dict) -> str | None:
    """What the ordinance allows for a number item, citing the item's section:
    "§ 315-13B(2) allows at least 6 in". None for an item without a limit."""
    limit = limit_text(item)
    if limit is None:
        return None
    return f"{item['section']} allows {limit}" if item.get("section") else f"allowed: {limit}"


def passes(item: dict, value) -> bool:
    """Whether one answer meets the item's pass condition (no condition: it passes)."""
    if "pass" in item:
        return value in item["pass"]
    if item["type"] != "number":
        return True
    if "pass_ranges" in item:
        return any(lo <= value <= hi for lo, hi in item["pass_ranges"])
    return item.get("pass_min", -math.inf) <= value <= item.get("pass_max", math.inf)


def clear_water_entries(template: dict, answers: dict) -> list[dict]:
    """Entries of the template's clear-water groups (each one source on the parcel)."""
    entries: list[dict] = []
    for item in template["items"]:
        if item.get("clear_water_finding") and _active(item, answers):
            entries.extend(answers.get(item["id"]) or [])
    return entries
