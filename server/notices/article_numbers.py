"""USPS article (tracking) numbers for Certified Mail: build and validate.

An IMpb number (USPS Pub 199) reads, for a 9-digit Mailer ID (MID)::

    92 | 071 | 902358909 | 0000001 | 8
    channel, service type code (STC), MID, serial, mod-10 check digit

22 digits with a 7-digit serial, 26 with an 11-digit one; a 6-digit MID takes a
10- or 14-digit serial. The check digit weights the other digits 3, 1, 3, 1, ...
from the right and is ``(10 - sum % 10) % 10``. Also accepted on input:

* the legacy 20-digit form (2-digit service, MID, 8-digit package id, check), whose
  check digit is computed with ``91`` prepended when it does not already start so;
* 22-digit legacy numbers that carry the ``91`` application identifier;
* any of these behind the routing prefix ``420`` + destination ZIP (5 or 9 digits).
  A 34-digit string is ambiguous (ZIP9 + 22 or ZIP5 + 26): both readings are tried.

The check digit alone passes ``000...0``, so the structure is checked as well.
Service type codes are not interpreted (no USPS table was found to cite).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: Channel application identifiers of IMpb: 92/93 commercial (9-/6-digit MID),
#: 94 USPS online, 95 USPS retail.
IMPB_CHANNELS = ("92", "93", "94", "95")
LEGACY_AI = "91"


class ArticleNumberError(ValueError):
    """An article number cannot be built from the given parts."""


class ArticleNumbersExhausted(ArticleNumberError):
    """Every serial in the rulebook's ``[mail]`` range has been used."""


def digits_of(number: str) -> str:
    """The number without spaces (as printed in groups of four)."""
    return re.sub(r"\s+", "", number)


def check_digit(digits: str) -> int:
    """USPS mod-10 check digit of ``digits`` (the number *without* its check digit).

    Weights 3, 1, 3, 1, ... from the rightmost digit leftward.
    """
    if not digits.isdigit():
        raise ArticleNumberError(f"not all digits: {digits!r}")
    total = sum(int(c) * (3 if i % 2 == 0 else 1) for i, c in enumerate(reversed(digits)))
    return (10 - total % 10) % 10


def _check_ok(digits: str) -> bool:
    return check_digit(digits[:-1]) == int(digits[-1])


def _impb_ok(d: str) -> bool:
    """22- or 26-digit IMpb: channel, STC, MID (9 digits if it starts with 9, else 6)."""
    if d[:2] not in IMPB_CHANNELS:
        return False
    mid_len = 9 if d[5] == "9" else 6
    if d[:2] == "92" and mid_len != 9 or d[:2] == "93" and mid_len != 6:
        return False
    mid, serial = d[5 : 5 + mid_len], d[5 + mid_len : -1]
    if int(mid) == 0 or int(serial) == 0:
        return False
    return _check_ok(d)


def _legacy_ok(d20: str) -> bool:
    """20-digit legacy body (service, MID, package id, check), checked with ``91``."""
    mid, package = d20[2:11], d20[11:19]
    if int(mid) == 0 or int(package) == 0:
        return False
    return _check_ok(d20) or _check_ok(LEGACY_AI + d20)


def _tracking_ok(d: str) -> bool:
    if len(d) == 20:
        return _legacy_ok(d)
    if len(d) == 22 and d.startswith(LEGACY_AI):
        return _legacy_ok(d[2:]) and _check_ok(d)
    if len(d) in (22, 26):
        return _impb_ok(d)
    return False


def split_routing(number: str) -> list[tuple[str | None, str]]:
    """Every reading of ``number`` as (destination ZIP or None, tracking number).

    ``420`` + ZIP5 or ZIP9 may precede the tracking number; a 34-digit string
    yields two readings.
    """
    d = digits_of(number)
    readings: list[tuple[str | None, str]] = [(None, d)]
    if d.startswith("420"):
        for zip_len in (5, 9):
            rest = d[3 + zip_len :]
            if len(rest) in (20, 22, 26):
                readings.append((d[3 : 3 + zip_len], rest))
    return readings


def is_valid(number: str) -> bool:
    """True when ``number`` is a well-formed USPS tracking number with a good check digit.

    Accepts IMpb (22/26 digits), legacy (20 digits, or 22 with ``91``) and either
    behind ``420`` + ZIP; spaces are ignored. All-zero MIDs, serials and ZIPs fail.
    """
    d = digits_of(number)
    if not d.isdigit():
        return False
    for zip_code, tracking in split_routing(d):
        if zip_code is not None and int(zip_code[:5]) == 0:
            continue
        if _tracking_ok(tracking):
            return True
    return False


def sticker_number(scanned: str) -> str | None:
    """The tracking number of a PS 3800 sticker as scanned or typed, or None if invalid.

    A keyboard-wedge reader gives the barcode's digits (``420`` + ZIP, then the number,
    perhaps with the GS1 group separator); a clerk types the printed number in groups
    of four. Either way the mod-10 check digit is checked and the tracking number alone
    is kept.
    """
    d = re.sub(r"[\s\x1d]+", "", scanned)
    if not d.isdigit():
        return None
    for zip_code, tracking in reversed(split_routing(d)):
        if (zip_code is None or int(zip_code[:5]) != 0) and _tracking_ok(tracking):
            return tracking
    return None


def build_article_number(serial: int, mail_cfg: dict[str, Any]) -> str:
    """The 22-digit IMpb article number for one serial.

    Args:
        serial: the piece's serial, within ``serial_first..serial_last``.
        mail_cfg: the rulebook's ``[mail]`` table (``channel``, ``service_type_code``,
            ``mailer_id``).

    Raises:
        ArticleNumberError: the parts do not make a valid 22-digit number.
    """
    channel, stc, mid = (str(mail_cfg[k]) for k in ("channel", "service_type_code", "mailer_id"))
    serial_len = 22 - 1 - len(channel) - len(stc) - len(mid)
    if not (serial_len > 0 and 0 < serial < 10**serial_len):
        raise ArticleNumberError(f"serial {serial} does not fit {serial_len} digits")
    body = f"{channel}{stc}{mid}{serial:0{serial_len}d}"
    number = body + str(check_digit(body))
    if not is_valid(number):
        raise ArticleNumberError(f"{number} is not a valid IMpb number; check [mail] in the rulebook")
    return number


def human_readable(number: str) -> str:
    """Groups of four digits, as USPS prints the number under the barcode."""
    d = digits_of(number)
    return " ".join(d[i : i + 4] for i in range(0, len(d), 4))


def gs1_element_string(number: str, zip_code: str) -> str:
    """The GS1-128 data, in human-readable AI form: ``(420) ZIP (article number)``."""
    return f"(420){digits_of(zip_code)}{digits_of(number)}"


@dataclass(frozen=True)
class SerialRange:
    """The serials a utility may use, from the rulebook's ``[mail]`` table.

    This is the pure arithmetic; the server allocates serials in the database, in
    one transaction, so two clerks never get the same one.
    """

    first: int
    last: int

    @classmethod
    def from_mail_config(cls, mail_cfg: dict[str, Any]) -> SerialRange:
        return cls(int(mail_cfg["serial_first"]), int(mail_cfg["serial_last"]))

    def __post_init__(self) -> None:
        if not 0 < self.first <= self.last:
            raise ArticleNumberError(f"bad serial range {self.first}..{self.last}")

    def next_after(self, last_used: int | None) -> int:
        """The serial to use after ``last_used`` (None: nothing used yet).

        Raises:
            ArticleNumbersExhausted: ``last_used`` is already ``last``.
        """
        nxt = self.first if last_used is None else max(last_used + 1, self.first)
        if nxt > self.last:
            raise ArticleNumbersExhausted(
                f"article-number serials {self.first}..{self.last} are used up; "
                "ask USPS for a new range and set serial_first/serial_last in [mail]"
            )
        return nxt

    def remaining(self, last_used: int | None) -> int:
        """How many serials are still free."""
        return self.last - (self.first - 1 if last_used is None else max(last_used, self.first - 1))
