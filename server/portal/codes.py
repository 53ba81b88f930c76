"""Lookup codes: random, typed in groups, with a check character. Pure (no Flask, no database).

A code is 15 random symbols of Crockford's base32 (75 bits, from :mod:`secrets`) and one
check symbol, printed as four groups of four: ``7KQ2-M9XD-0RHT-4B6W``. Crockford's alphabet
leaves out I, L, O and U, and reading a code back maps the look-alikes (``O`` to 0, ``I``
and ``L`` to 1), ignores case, spaces and hyphens. The check symbol is Luhn's mod N
algorithm over the same 32 symbols rather than Crockford's mod-37 symbol, whose extra
characters (``* ~ $ =``) are hard to type on a phone; it catches every single mistyped
symbol and every swap of two neighbours among the random symbols but ``0``/``Z`` (Luhn's
one blind spot, as ``09``/``90`` in base ten).

Only the SHA-256 of a code is stored (:func:`digest`): the database cannot print a code
again, and a copy of it opens no notice.
"""

from __future__ import annotations

import hashlib
import secrets

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
RANDOM_SYMBOLS = 15
BITS = RANDOM_SYMBOLS * 5
LENGTH = RANDOM_SYMBOLS + 1
GROUP = 4
_LOOK_ALIKES = str.maketrans({"O": "0", "I": "1", "L": "1"})
_VALUE = {symbol: n for n, symbol in enumerate(ALPHABET)}


def N_(words: str) -> str:  # noqa: N802 (gettext's name for it, which pybabel looks for)
    """Marks ``words`` for the portal's catalogue (pure here: ``server/portal/lookup.py``
    translates them)."""
    return words


class CodeMistyped(ValueError):
    """A code that cannot be one: wrong length, a symbol outside the alphabet, or a check
    symbol that does not match (a typing mistake). Says nothing about any notice.

    ``words`` is the English sentence with its ``%(name)s`` ``fields`` apart, for the reader's
    language."""

    def __init__(self, words: str, **fields: object):
        super().__init__(words % fields if fields else words)
        self.words, self.fields = words, fields


def check_symbol(payload: str) -> str:
    """Luhn mod 32 over ``payload`` (symbols of :data:`ALPHABET`)."""
    n = len(ALPHABET)
    total, factor = 0, 2
    for symbol in reversed(payload):
        addend = factor * _VALUE[symbol]
        total += addend // n + addend % n
        factor = 1 if factor == 2 else 2
    return ALPHABET[(n - total % n) % n]


def new_code() -> str:
    """A fresh code, grouped for printing."""
    payload = "".join(secrets.choice(ALPHABET) for _ in range(RANDOM_SYMBOLS))
    return grouped(payload + check_symbol(payload))


def grouped(code: str) -> str:
    """``code`` (normalised) in groups of four, joined by hyphens."""
    return "-".join(code[i:i + GROUP] for i in range(0, len(code), GROUP))


def normalise(typed: str) -> str:
    """The code as typed, read back: upper case, look-alikes mapped, separators dropped.

    Raises:
        CodeMistyped: For a wrong length, an unknown symbol or a failed check symbol.
    """
    code = "".join(ch for ch in (typed or "").upper() if ch not in " -\t").translate(_LOOK_ALIKES)
    if len(code) != LENGTH:
        raise CodeMistyped(N_("a lookup code has %(n)s letters and digits"), n=LENGTH)
    if any(ch not in _VALUE for ch in code):
        raise CodeMistyped(N_("a lookup code has only the digits and the letters A to Z without I, L, O and U"))
    if check_symbol(code[:-1]) != code[-1]:
        raise CodeMistyped(N_("the code is mistyped: check each letter and digit against the letter"))
    return code


def digest(code: str) -> str:
    """What is stored of a normalised code."""
    return hashlib.sha256(code.encode()).hexdigest()
