"""Checklist templates in the database: loading the data files, reading versions."""

from __future__ import annotations

from sqlalchemy import func, select

from gis.rules import registered_rules
from server.core import city
from server.core.audit import trail as audit
from server.core.extensions import db
from server.field import events
from server.field.checklists import TemplateError, content_hash, read_templates
from server.field.checklists.answers import requirement
from server.field.models import ChecklistTemplate


def load_templates(directory=None) -> list[str]:
    """Store every template file's version that the database does not hold yet.

    Loading again is harmless. A file whose content changed under a version already
    loaded is refused: inspections point at the version they used, so a changed
    checklist is a new version.

    Returns:
        One line per template: loaded, or already there.
    """
    files = read_templates(directory) if directory else read_templates()
    report = []
    for data in files:
        digest = content_hash(data)
        row = db.session.execute(
            select(ChecklistTemplate).filter_by(template_id=data["id"], version=data["version"])
        ).scalar_one_or_none()
        if row is not None:
            if row.content_hash != digest:
                raise TemplateError(
                    f"{data['id']} version {data['version']} is already loaded with other content; "
                    "raise its version instead of editing a published checklist")
            report.append(f"{data['id']} v{data['version']}: already loaded")
            continue
        row = ChecklistTemplate(template_id=data["id"], version=data["version"], title=data["title"],
                                content=data, content_hash=digest)
        db.session.add(row)
        db.session.flush()
        audit.record("load", "checklist_template", row.id, None,
                     {"template_id": row.template_id, "version": row.version, "content_hash": digest})
        report.append(f"{data['id']} v{data['version']}: loaded")
    return report


def get_template(template_id: str, version: int) -> ChecklistTemplate | None:
    return db.session.execute(
        select(ChecklistTemplate).filter_by(template_id=template_id, version=version)
    ).scalar_one_or_none()


def current_templates() -> list[ChecklistTemplate]:
    """The latest version of each template, by template id."""
    latest = (select(ChecklistTemplate.template_id, func.max(ChecklistTemplate.version).label("v"))
              .group_by(ChecklistTemplate.template_id).subquery())
    stmt = (select(ChecklistTemplate)
            .join(latest, (ChecklistTemplate.template_id == latest.c.template_id)
                  & (ChecklistTemplate.version == latest.c.v))
            .order_by(ChecklistTemplate.template_id))
    return list(db.session.execute(stmt).scalars())


def template_out(row: ChecklistTemplate) -> dict:
    """A template as the API and the tablet see it: the file's content, each item with
    what it allows (``requirement``) and a choice among rules with their names
    (``option_labels``); derived, never part of the stored content or its hash."""
    names, rule_items = rule_names(), _rule_items(row.content["items"])
    items = [_described(item, names, rule_items) for item in row.content["items"]]
    return {**row.content, "items": items, "id": row.template_id, "version": row.version}


def rule_names() -> dict[str, dict]:
    """Every rule a checklist may name, as an inspector reads it: ``{id: {"title", "section"}}``.

    A field rule is named by its statement, with the city rulebook's section; the domains
    above field work name their own rules (the notices domain: a notice kind's rule by the
    notice's title, :data:`server.field.events.rule_names_wanted`), and their names win.
    """
    rulebook = city.current().rulebook
    names: dict[str, dict] = {}
    for rule in registered_rules():
        names[rule.id] = {"title": rule.statement, "section": rule.section_for(rulebook)}
    for declared in events.announce(events.rule_names_wanted, known=names):
        names.update(declared or {})
    return names


def _described(item: dict, names: dict[str, dict], rule_items: set[str]) -> dict:
    """An item with what the tablet shows before it is answered: the limit the ordinance
    sets (``requirement``) and, for a choice of the rule another item evidences
    (``rule_from``), each rule's name and section (``option_labels``)."""
    out = dict(item)
    if (allowed := requirement(item)) is not None:
        out["requirement"] = allowed
    if item.get("type") == "choice" and item["id"] in rule_items:
        out["option_labels"] = {o: _rule_label(o, names) for o in item["options"]}
    if item.get("type") == "group":
        out["items"] = [_described(i, names, rule_items) for i in item["items"]]
    return out


def _rule_label(rule_id: str, names: dict[str, dict]) -> str:
    known = names.get(rule_id)
    if known is None:  # a rule no register declares: its id in words
        return rule_id.replace("-", " ").capitalize()
    return " — ".join(filter(None, (known["title"], known["section"])))


def _rule_items(items: list[dict]) -> set[str]:
    """Ids of the items whose answer names the rule another item evidences."""
    found = set()
    for item in items:
        if item.get("rule_from"):
            found.add(item["rule_from"])
        found |= _rule_items(item.get("items") or [])
    return found
