"""Permits that lapse: issued, and their work not inspected within the rulebook's period.

§ 315-11's permit is for work done while it is in force: the rulebook's ``[permits]
expires_after_days`` (180 in Arcadia) after issue, the last day printed on the permit card
(``expires_on``). The daily tick (``flask --app server notices tick``, the job the notices
use) expires every permit still issued or scheduled past that day, audited with no login
as its actor and dated in its history (:func:`expire_lapsed`); then, once that is
committed, each holder who left an email address is told (:func:`tell_holders`), through
the city's mail server when one is set.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import select

from server.core import city, mail
from server.core.extensions import db
from server.network.models import Parcel
from server.permits import workflow
from server.permits.models import Permit

#: Work not started, or started and not inspected: an inspection requested is the city's
#: to make, and a passed or failed one was made.
LAPSING = ("issued", "scheduled")


def lapsed(on: date) -> list[Permit]:
    """Permits still issued or scheduled whose last day (``expires_on``) is before ``on``."""
    return list(db.session.scalars(select(Permit).where(Permit.state.in_(LAPSING), Permit.expires_on < on)
                                   .order_by(Permit.id)))


def expire_lapsed(on: date | None = None) -> list[int]:
    """Expire every lapsed permit as of ``on`` (default today); their ids."""
    on = on or city.current().today()
    days = int(workflow.rules().get("expires_after_days", 180))
    expired = []
    for permit in lapsed(on):
        workflow.lapse(permit, on, f"not inspected within {days} days of issue: in force through "
                                   f"{permit.expires_on.isoformat() if permit.expires_on else '?'}")
        expired.append(permit.id)
    return expired


def message(permit: Permit, place: str) -> tuple[str, str]:
    """(subject, text) telling the holder that the permit expired and what to do."""
    m = city.current().rulebook.municipality
    subject = f"Permit {permit.number} has expired"
    text = (f"Permit {permit.number} for {permit.kind.replace('_', ' ')} work at {place} expired: it was in force "
            f"through {permit.expires_on.isoformat() if permit.expires_on else 'its last day'}, and the work was not "
            f"inspected by then. No work may be done under it now. To do the work, apply for a new permit at the "
            f"{m['utility']}, {m['phone']}.")
    return subject, text


def tell_holders(permit_ids: list[int]) -> int:
    """Email each expired permit's applicant who gave an address; how many were sent.

    Run after the expiry is committed: a message never tells of a change rolled back.
    """
    if not mail.enabled():
        return 0
    sent = 0
    for permit in db.session.scalars(select(Permit).where(Permit.id.in_(permit_ids)).order_by(Permit.id)):
        if not permit.applicant_email:
            continue
        parcel = db.session.get(Parcel, permit.parcel_id)
        place = (parcel.site_address or f"parcel {parcel.parcel_number}") if parcel else f"parcel {permit.parcel_id}"
        subject, text = message(permit, place)
        sent += mail.send(mail.compose(permit.applicant_email, subject, text))
    return sent
