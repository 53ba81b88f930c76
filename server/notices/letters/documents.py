"""Plain inputs for letters and mailing books (no ORM: the server fills these in)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from shapely.geometry.base import BaseGeometry

from gis.rulebook import Rulebook
from server.notices.kinds import NOTICE_KINDS

__all__ = ["NOTICE_KINDS", "Addressee", "DeadlineText", "Finding", "MailPiece", "MapFeature",
           "Municipality", "NoticeLetter", "PortalInvite", "ServiceStepLine", "money"]


@dataclass(frozen=True)
class Municipality:
    """The sender: letterhead, return address and whom to call (rulebook ``[municipality]``)."""

    name: str
    utility: str
    commission: str
    ordinance: str
    return_address: tuple[str, ...]
    phone: str
    superintendent_title: str = "Superintendent"
    clerk_title: str = "Clerk"

    @classmethod
    def from_rulebook(cls, rulebook: Rulebook) -> Municipality:
        m = rulebook.municipality
        return cls(
            name=m["name"], utility=m["utility"], commission=m["commission"],
            ordinance=m.get("ordinance", ""), return_address=tuple(m["return_address"]),
            phone=m["phone"], superintendent_title=m.get("superintendent_title", "Superintendent"),
            clerk_title=m.get("clerk_title", "Clerk"),
        )


@dataclass(frozen=True)
class Addressee:
    """An owner's mailing address as the tax roll gives it.

    Attributes:
        names: one line per owner (``OWNERNME1``, ``OWNERNME2``).
        street_lines: delivery address line(s), e.g. ``("PO BOX 12",)``.
        city, state, zip_code: last line; ``zip_code`` is ZIP or ZIP+4 (``54612-1328``).
    """

    names: tuple[str, ...]
    street_lines: tuple[str, ...]
    city: str
    state: str
    zip_code: str

    @property
    def zip5(self) -> str:
        return self.zip_code[:5]

    @property
    def zip_digits(self) -> str:
        """ZIP5 or ZIP9 digits, for the ``420`` routing element of the barcode."""
        return "".join(c for c in self.zip_code if c.isdigit())

    @property
    def last_line(self) -> str:
        return f"{self.city} {self.state} {self.zip_code}"

    def lines(self) -> list[str]:
        """The address block, top to bottom (USPS style: no punctuation needed)."""
        return [*self.names, *self.street_lines, self.last_line]


@dataclass(frozen=True)
class Finding:
    """One thing found, the section it violates, and how it was found.

    Attributes:
        text: What was found, in words the owner can check (no internal ids).
        section: The section it violates.
        basis: How it was found, completing "Found by ...": "an inspection of the
            property on <date> by <name>", or "the city's records of the sewer network
            as of <date>". Findings with the same basis print under one heading.
    """

    text: str
    section: str
    basis: str = ""


@dataclass(frozen=True)
class MapFeature:
    """A geometry for the letter's small map (EPSG:4326, lon/lat).

    ``kind`` picks the style: ``building``, ``main``, ``lateral``, ``manhole``,
    ``finding``, ``parcel`` (a neighbour), ``street`` or anything else (thin grey line).
    ``label`` is written along a line where it fits (a street's name, as the owner's
    address writes it).
    """

    geometry: BaseGeometry
    kind: str
    label: str = ""


@dataclass(frozen=True)
class DeadlineText:
    """The deadline as a letter prints it: the date and how it was computed."""

    date: date
    steps: tuple[str, ...]
    section: str = ""

    @classmethod
    def of(cls, deadline: Any) -> DeadlineText:
        """From a :class:`server.notices.calendar.Deadline` (or anything alike)."""
        return cls(deadline.date, tuple(deadline.steps), getattr(deadline, "section", ""))


@dataclass(frozen=True)
class NoticeLetter:
    """Everything one notice letter prints.

    Attributes:
        kind: one of :data:`NOTICE_KINDS`.
        parcel_geometry: the parcel polygon (EPSG:4326) for the map; None: no map.
        nearby: other features drawn on the map.
        photos: JPEG/PNG thumbnails on disk, printed in this order (at most 3).
        service_record: on a reprint, what was done to serve the notice (plain
            sentences, :func:`server.notices.service_of_notice.service_record`),
            as recorded on ``service_as_of``; empty on the letter as first mailed.
        follows: for a follow-up notice (the hook-up penalty's ten days' notice), the
            sentence naming the notice it follows
            (:func:`server.notices.letters.texts.follows_text`), else "".
    """

    municipality: Municipality
    kind: str
    addressee: Addressee
    parcel_number: str
    site_address: str
    findings: tuple[Finding, ...]
    deadline: DeadlineText
    article_number: str
    mailed: date
    parcel_geometry: BaseGeometry | None = None
    nearby: tuple[MapFeature, ...] = ()
    photos: tuple[Path, ...] = ()
    signer: str = ""
    service_record: tuple[str, ...] = ()
    service_as_of: date | None = None
    portal: PortalInvite | None = None
    follows: str = ""

    def __post_init__(self) -> None:
        if self.kind not in NOTICE_KINDS:
            raise ValueError(f"unknown notice kind {self.kind!r}; expected one of {NOTICE_KINDS}")


@dataclass(frozen=True)
class PortalInvite:
    """The letter's way online: the portal's address and the notice's lookup code
    (``server/portal/``), printed with a QR code of the two (``qr``)."""

    address: str
    code: str
    qr: str


@dataclass(frozen=True)
class MailPiece:
    """One line of the firm mailing book (PS Form 3877)."""

    article_number: str
    addressee: Addressee
    postage: Decimal
    certified_fee: Decimal
    return_receipt_fee: Decimal
    service: str = "Certified Mail, Return Receipt"

    @property
    def total(self) -> Decimal:
        return self.postage + self.certified_fee + self.return_receipt_fee

    @classmethod
    def for_letter(cls, letter: NoticeLetter, mail_cfg: dict[str, Any]) -> MailPiece:
        """The mail piece of a letter, with the fees of the rulebook's ``[mail]`` table."""
        return cls(
            article_number=letter.article_number, addressee=letter.addressee,
            postage=money(mail_cfg["postage"]), certified_fee=money(mail_cfg["certified_fee"]),
            return_receipt_fee=money(mail_cfg["return_receipt_fee"]),
        )


@dataclass(frozen=True)
class ServiceStepLine:
    """A substitute-service step taken after a certified letter came back, for the mailing record.

    Attributes:
        step: ``first_class_mailing`` (a second mailing by first-class mail) or ``posting``
            (a posting at the premises).
        done_on: the day it was done.
        addressee: the owner as the certified letter was addressed.
        site_address: the premises.
        notice_id: the notice served.
        article_number: the certified article that came back.
        came_back: how and when it came back, e.g. ``unclaimed Thu 2026-10-08``.
    """

    step: str
    done_on: date
    addressee: Addressee
    site_address: str
    notice_id: int
    article_number: str
    came_back: str


def money(value: Any) -> Decimal:
    """Dollars as an exact Decimal (TOML floats go through ``str`` to stay exact)."""
    return Decimal(str(value)).quantize(Decimal("0.01"))
