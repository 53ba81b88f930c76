"""Whose clear-water finding it is (issue 15, "inspectors hold their own work").

A finding names the person who saw it (``observed_by``): the server writes it from the
logged-in user, never from what the client sends, and nobody changes it afterwards.
Only its author and the superintendent may change or delete a finding; the author is
whoever's request created it, as the audit trail records (a finding loaded without a
user, from an import or the demo city, is the superintendent's to change).
"""

from __future__ import annotations

from sqlalchemy import select

from server.core.audit.models import AuditEvent
from server.core.errors import LateralError, invalid_fields
from server.core.extensions import db

SUBJECT = "finding"


def observer_name(user) -> str:
    """The name a user's findings and inspections go by (``observed_by``)."""
    return (user.display_name or user.username)[:120]


def author_id(fid: int) -> int | None:
    """The user whose request created finding ``fid`` (the latest create of that id)."""
    return db.session.scalar(
        select(AuditEvent.user_id).where(AuditEvent.subject_type == SUBJECT, AuditEvent.subject_id == fid,
                                         AuditEvent.action == "create")
        .order_by(AuditEvent.id.desc()).limit(1))


def stamp_new(layer, props: dict, actor) -> dict:
    """A new finding's properties with ``observed_by`` the logged-in user's name."""
    if layer.authors_own is None or actor is None:
        return props
    return {**props, "observed_by": observer_name(actor)}


def check_change(layer, obj, props: dict | None, actor) -> None:
    """Refuse a change of finding ``obj`` by anyone but its author and the superintendent,
    and any change of ``observed_by``.

    Raises:
        LateralError: ``not_your_finding``; ``invalid_fields`` for ``observed_by``.
    """
    if layer.authors_own is None or actor is None:
        return
    if actor.role not in layer.authors_own.edit_any and author_id(obj.id) != actor.id:
        raise LateralError("not_your_finding",
                           f"finding {obj.id} was recorded by someone else; only its author and the "
                           "superintendent may change it", {"your_role": actor.role})
    if props and "observed_by" in props and props["observed_by"] != obj.observed_by:
        raise invalid_fields({"observed_by": ["is set by the server from who recorded the finding"]},
                             "properties")
