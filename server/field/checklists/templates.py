"""Reading checklist template files and checking that they are well formed."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

CHECKLIST_DIR = Path(__file__).parent
ITEM_TYPES = ("yes_no", "number", "choice", "text", "photo", "location", "group")
YES_NO = ("yes", "no", "na")
_ID = re.compile(r"^[a-z][a-z0-9_-]{0,59}$")
_ITEM_KEYS = {
    "id", "prompt", "type", "required", "allow_na", "unit", "min", "max", "options", "pass",
    "pass_min", "pass_max", "pass_ranges", "rule", "rule_from", "section", "fail_message",
    "when", "items", "min_count", "clear_water_finding", "short",
}


class TemplateError(ValueError):
    """A template file is not a valid checklist; the message names the file and item."""


def canonical_json(obj) -> str:
    """The one JSON spelling used for content hashes: sorted keys, no spaces, UTF-8."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(obj) -> str:
    """SHA-256 (hex) of :func:`canonical_json` of ``obj``."""
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()


def read_templates(directory: Path = CHECKLIST_DIR) -> list[dict]:
    """Every ``*.json`` template in ``directory``, checked, in file-name order."""
    templates = []
    for path in sorted(Path(directory).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise TemplateError(f"{path.name}: not valid JSON: {exc}") from None
        check_template(data, path.name)
        if data["id"] != path.stem:
            raise TemplateError(f"{path.name}: id {data['id']!r} does not match the file name")
        templates.append(data)
    return templates


def check_template(data: dict, where: str = "template") -> None:
    """Raise :class:`TemplateError` unless ``data`` is a well-formed template."""
    if not isinstance(data, dict):
        raise TemplateError(f"{where}: not an object")
    for key in ("id", "version", "title", "items"):
        if key not in data:
            raise TemplateError(f"{where}: {key!r} is missing")
    if not _ID.match(str(data["id"])):
        raise TemplateError(f"{where}: id {data['id']!r} is not lower-case letters, digits, - and _")
    if not isinstance(data["version"], int) or isinstance(data["version"], bool) or data["version"] < 1:
        raise TemplateError(f"{where}: version must be a positive integer")
    _check_items(data["items"], where, top=True)


def _check_items(items, where: str, top: bool) -> None:
    if not isinstance(items, list) or not items:
        raise TemplateError(f"{where}: items must be a non-empty list")
    seen: set[str] = set()
    for item in items:
        _check_item(item, where, top, seen)


def _check_item(item, where: str, top: bool, seen: set[str]) -> None:
    if not isinstance(item, dict) or not _ID.match(str(item.get("id", ""))):
        raise TemplateError(f"{where}: every item needs an id of lower-case letters, digits and _")
    at = f"{where}: item {item['id']!r}"
    if item["id"] in seen:
        raise TemplateError(f"{at} appears twice")
    seen.add(item["id"])
    unknown = set(item) - _ITEM_KEYS
    if unknown:
        raise TemplateError(f"{at}: unknown keys {sorted(unknown)}")
    if not item.get("prompt"):
        raise TemplateError(f"{at}: prompt is missing")
    kind = item.get("type")
    if kind not in ITEM_TYPES:
        raise TemplateError(f"{at}: type must be one of {', '.join(ITEM_TYPES)}")
    if kind == "choice" and not item.get("options"):
        raise TemplateError(f"{at}: a choice needs options")
    allowed = item.get("options") if kind == "choice" else YES_NO if kind == "yes_no" else None
    if "pass" in item and (allowed is None or not set(item["pass"]) <= set(allowed)):
        raise TemplateError(f"{at}: pass values must be among the item's answers")
    if "short" in item and (kind != "text" or not isinstance(item["short"], bool)):
        raise TemplateError(f"{at}: short (true for a one-line answer, such as a permit number) is for text items")
    if item.get("rule") and not item.get("section"):
        raise TemplateError(f"{at}: an item evidencing a rule cites its section")
    if kind == "group":
        if not top:
            raise TemplateError(f"{at}: groups do not nest")
        _check_items(item.get("items"), at, top=False)
    when = item.get("when")
    if when is not None and (not isinstance(when, dict) or set(when) != {"item", "equals"}):
        raise TemplateError(f"{at}: when is {{'item': …, 'equals': …}}")
