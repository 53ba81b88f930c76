"""What the permits domain makes of field work, heard through :mod:`server.field.events`:
a tap recorded without its permit is refused, a tablet's assignment under a permit carries
the permit's conditions, and a stored inspection passes or fails the permit."""

from __future__ import annotations

from flask import Flask

from server.field import events
from server.field.models import Assignment
from server.permits import inspections


def connect(app: Flask) -> None:
    events.connect(app, events.inspection_checking, _inspection_checking)
    events.connect(app, events.assignment_pulled, _assignment_pulled)
    events.connect(app, events.inspection_stored, _inspection_stored)


def _inspection_checking(_app, *, template_id: str, parcel_id: int, answers: dict, actor) -> None:
    inspections.check_tap_permit(template_id, parcel_id, answers)


def _assignment_pulled(_app, *, assignment: Assignment) -> dict:
    permit = inspections.permit_of_assignment(assignment.id)
    return {"permit": inspections.conditions(permit)} if permit is not None else {}


def _inspection_stored(_app, *, inspection, observed_on, actor) -> list[int]:
    inspections.settle(inspection, actor)
    return []
