"""Checklist templates as data files, and the rules for answering them.

Pure (no Flask, no session): ``templates`` reads and checks the JSON files beside
this module; ``answers`` checks a submitted set of answers against its template and
says which answers fail which rule. ``server/field/checklist_templates.py`` stores the
templates; ``server/field/inspections.py`` acts on the failures.
"""

from server.field.checklists.answers import AnswerError, Failure, check_answers, clear_water_entries, evaluate
from server.field.checklists.templates import CHECKLIST_DIR, TemplateError, check_template, content_hash, read_templates

__all__ = [
    "CHECKLIST_DIR",
    "AnswerError",
    "Failure",
    "TemplateError",
    "check_answers",
    "check_template",
    "clear_water_entries",
    "content_hash",
    "evaluate",
    "read_templates",
]
