"""A page of notices' appeals and substitute-service steps, one query each."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from sqlalchemy import select

from server.core.extensions import db
from server.notices.models import Notice, NoticeAppeal, ServiceStep


def _by_notice(model, notices: Iterable[Notice]) -> dict[int, list]:
    ids = sorted({n.id for n in notices})
    out: dict[int, list] = defaultdict(list)
    if ids:
        for row in db.session.scalars(select(model).where(model.notice_id.in_(ids)).order_by(model.id)):
            out[row.notice_id].append(row)
    return out


def appeals_by_notice(notices: Iterable[Notice]) -> dict[int, list[NoticeAppeal]]:
    return _by_notice(NoticeAppeal, notices)


def steps_by_notice(notices: Iterable[Notice]) -> dict[int, list[ServiceStep]]:
    return _by_notice(ServiceStep, notices)
