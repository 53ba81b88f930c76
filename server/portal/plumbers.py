"""Plumbers' accounts: registration with the Wisconsin license, the clerk's verification,
and the license's expiry.

* :func:`register` makes a ``plumber`` login that is disabled until the clerk verifies the
  license (:func:`verify`), against the state's credential lookup, by hand.
* A license past its expiry is refused at registration and verification, and
  :func:`may_apply` says no (permit applications, issue 32, ask it before taking one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from sqlalchemy import select

from server.core import city
from server.core.access.roles import PLUMBER
from server.core.accounts.models import User
from server.core.accounts.service import create_user
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import utcnow
from server.portal.i18n import _
from server.portal.models import PlumberLicense

#: A Wisconsin credential number as printed on the license (a prefix such as MP for a
#: master plumber, then the digits); spaces and case are forgiven.
LICENSE = re.compile(r"^[A-Z]{0,4}-?\d{3,8}(-[A-Z0-9]{1,4})?$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclass(frozen=True)
class Registration:
    username: str
    password: str
    name: str
    license_number: str
    expires_on: date
    email: str
    phone: str | None = None
    company: str | None = None


def _refuse(field: str, message: str) -> LateralError:
    return LateralError("invalid_fields", message, {"fields": {field: [message]}})


def register(r: Registration) -> User:
    """A disabled ``plumber`` login with its license, for the clerk to verify.

    Raises:
        LateralError: ``invalid_fields`` (license number, email, name), ``license_expired``,
            and the accounts' own (``username_taken``, ``weak_password``).
    """
    number = re.sub(r"\s", "", r.license_number or "").upper()
    if not LICENSE.match(number):
        raise _refuse("license_number", "type the license number as printed on the license, like MP-123456")
    if not EMAIL.match((r.email or "").strip()):
        raise _refuse("email", "an email address where the city can reach you")
    if not (r.name or "").strip():
        raise _refuse("name", "your name as on the license")
    if r.expires_on < city.current().today():
        raise LateralError("license_expired", f"the license expired on {r.expires_on.isoformat()}; "
                                              "register once it is renewed", {"expires_on": r.expires_on.isoformat()})
    user = create_user(r.username.strip(), PLUMBER, r.password, r.name.strip())
    user.active = False
    found = PlumberLicense(user_id=user.id, license_number=number, expires_on=r.expires_on, email=r.email.strip(),
                           phone=(r.phone or "").strip() or None, company=(r.company or "").strip() or None)
    db.session.add(found)
    db.session.flush()
    audit.record("register_plumber", "user", user.id, None,
                 {"via": "portal", "license_number": number, "expires_on": r.expires_on.isoformat()})
    return user


def license_of(user: User) -> PlumberLicense:
    found = db.session.scalar(select(PlumberLicense).filter_by(user_id=user.id))
    if found is None:
        raise LateralError("not_found", f"user {user.id} has no plumber's license on file")
    return found


def waiting() -> list[tuple[User, PlumberLicense]]:
    """Registrations the clerk has not verified, oldest first."""
    rows = db.session.execute(select(User, PlumberLicense).join(PlumberLicense, PlumberLicense.user_id == User.id)
                              .where(PlumberLicense.verified_at.is_(None)).order_by(PlumberLicense.registered_at))
    return [(u, lic) for u, lic in rows]


def verify(user_id: int, actor) -> User:
    """The clerk checked the license with the state: the login works from now on.

    Raises:
        LateralError: ``not_found``, ``not_open`` (verified already), ``license_expired``.
    """
    user = db.session.get(User, user_id)
    if user is None or user.role != PLUMBER:
        raise LateralError("not_found", f"no plumber {user_id}")
    found = license_of(user)
    if found.verified_at is not None:
        raise LateralError("not_open", "this plumber's license was verified already")
    if found.expires_on < city.current().today():
        raise LateralError("license_expired", f"the license expired on {found.expires_on.isoformat()}",
                           {"expires_on": found.expires_on.isoformat()})
    found.verified_by_id, found.verified_at = getattr(actor, "id", None), utcnow()
    user.active = True
    db.session.flush()
    audit.record("verify_plumber", "user", user.id, {"active": False},
                 {"active": True, "license_number": found.license_number}, actor)
    return user


def may_apply(user: User) -> tuple[bool, str]:
    """Whether the plumber may apply for a new permit today, and why not."""
    found = license_of(user)
    if found.verified_at is None:
        return False, _("the clerk has not verified your license yet")
    if found.expires_on < city.current().today():
        return False, _("your license expired on %(day)s: send the renewed license to the clerk before you "
                         "apply for a new permit", day=found.expires_on.isoformat())
    return True, ""
