"""Checklist templates in the database: loading the data files, reading versions."""

from __future__ import annotations

from sqlalchemy import func, select

from server.checklists import TemplateError, content_hash, read_templates
from server.extensions import db
from server.models import ChecklistTemplate
from server.services import audit


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
    """A template as the API and the tablet see it: the file's content."""
    return {**row.content, "id": row.template_id, "version": row.version}
