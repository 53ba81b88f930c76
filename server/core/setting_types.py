"""How one setting is declared, read and checked (the fields themselves: ``settings.py``).

A setting is a dataclass field made with :func:`setting`: its type is the field's
annotation, and the field's metadata holds the environment variable, its ``app.config``
key, a one-line meaning and the checks its value must pass. Reading turns the
variable's text into the annotated type; a check looks at the parsed value. Both give
a reason in plain words instead of raising, so the loader can collect every bad
variable before it refuses to start.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field
from pathlib import Path
from typing import Any, Union, get_args, get_origin

from limits import parse_many

#: A check looks at a parsed value and says what is wrong with it, or None.
Check = Callable[[Any], "str | None"]

TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off"})


@dataclass(frozen=True)
class Spec:
    """What a settings field says about itself besides its name, type and default.

    Attributes:
        env: The environment variable it is read from; None for a value only
            ``create_app``'s overrides can give (a mapping no variable spells).
        key: Its ``app.config`` key, which is also the key an override names.
        meaning: One line for docs/deploy.md.
        checks: What the parsed value must pass.
        sensitive: Never echo the value (a secret, or a URL that may hold a password).
        unset: What an unset variable means, when the default alone does not say it.
    """

    env: str | None
    key: str
    meaning: str
    checks: tuple[Check, ...] = ()
    sensitive: bool = False
    unset: str | None = None


def setting(env: str | None, default: Any, meaning: str, *checks: Check, key: str | None = None,
            sensitive: bool = False, unset: str | None = None) -> Any:
    """A settings field read from ``env`` (``app.config[key or env]``), ``default`` when unset."""
    name = key or env
    if name is None:
        raise TypeError("a setting needs an environment variable or an app.config key")
    spec = Spec(env, name, meaning, checks, sensitive, unset)
    return field(default=default, repr=not sensitive, metadata={"setting": spec})


def spec_of(f: Field) -> Spec:
    return f.metadata["setting"]


@dataclass(frozen=True)
class Problem:
    """One bad setting: the variable (or override key), what is wrong, and the value as
    given unless it is sensitive."""

    name: str
    reason: str
    shown: str | None = None

    def __str__(self) -> str:
        return f"{self.name}={self.shown}: {self.reason}" if self.shown else f"{self.name}: {self.reason}"


class SettingsError(RuntimeError):
    """The settings do not make a working app; ``problems`` names every bad one."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        count = "1 setting is" if len(problems) == 1 else f"{len(problems)} settings are"
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"Lateral cannot start: {count} wrong (docs/deploy.md lists them all):\n{lines}")


# ---------------------------------------------------------------------------- reading

def _base_type(annotation: Any) -> tuple[Any, bool]:
    """``(type, optional)`` of a field's annotation: ``int | None`` is ``(int, True)``."""
    optional = False
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        annotation, optional = args[0], len(args) < len(get_args(annotation))
    return get_origin(annotation) or annotation, optional


def _text_of(value: str, base: Any) -> tuple[Any, str | None]:
    """The variable's text as ``base``: (value, None), or (None, why it is not one)."""
    text = value.strip()
    if base is bool:
        if text.lower() in TRUE | FALSE:
            return text.lower() in TRUE, None
        return None, "is not yes or no (1, true, yes, on or 0, false, no, off)"
    if base is int:
        try:
            return int(text), None
        except ValueError:
            return None, "is not a whole number"
    if base is float:
        try:
            number = float(text)
        except ValueError:
            return None, "is not a number"
        return (number, None) if math.isfinite(number) else (None, "is not a finite number")
    if base is Path:
        return Path(text), None
    return value, None


def _typed(value: Any, base: Any) -> tuple[Any, str | None]:
    """An override already given as a value (not text): checked against the field's type."""
    if base is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value), None
    if base is Path and isinstance(value, str | Path):
        return Path(value), None
    if base is Mapping and isinstance(value, Mapping):
        return dict(value), None
    if isinstance(value, base) and not (base is int and isinstance(value, bool)):
        return value, None
    return None, f"is of type {type(value).__name__}, not {getattr(base, '__name__', base)}"


def parse(raw: Any, annotation: Any) -> tuple[Any, str | None]:
    """``raw`` (a variable's text, or an override's value) as the annotated type.

    An empty variable is the same as an unset one: the caller gives the default. None
    is allowed where the annotation is optional.
    """
    base, optional = _base_type(annotation)
    if raw is None:
        return (None, None) if optional else (None, "must be set")
    if isinstance(raw, str) and base is not str:
        return _text_of(raw, base)
    return _typed(raw, base)


# ----------------------------------------------------------------------------- checks

def at_least(low: float) -> Check:
    return lambda v: None if v is None or v >= low else f"is less than {low:g}"


def between(low: int, high: int) -> Check:
    return lambda v: None if v is None or low <= v <= high else f"is not between {low} and {high}"


def one_of(*choices: str) -> Check:
    return lambda v: None if v is None or v in choices else f"is not one of {', '.join(choices)}"


def url(*schemes: str, hint: str = "") -> Check:
    """The value is ``<scheme>://…`` with one of ``schemes``; only the scheme is echoed."""
    def check(v: str | None) -> str | None:
        if v is None:
            return None
        scheme, sep, _ = v.partition("://")
        if not sep:
            return f"is not a URL ({' or '.join(f'{s}://…' for s in schemes)}){hint}"
        if scheme.lower() not in schemes:
            return f"has the scheme {scheme!r}, not {' or '.join(schemes)}{hint}"
        return None
    return check


def existing_file(v: Path | str | None) -> str | None:
    return None if v is None or Path(v).is_file() else "is no file that exists"


def folder(v: Path | None) -> str | None:
    """A folder Lateral makes when it is missing: it must not be something else already."""
    return "exists and is not a folder" if v is not None and v.exists() and not v.is_dir() else None


def rate_limit(v: str | None) -> str | None:
    """The ``limits`` library's notation, e.g. ``10 per 15 minutes``."""
    if v is None:
        return None
    try:
        parse_many(v)
    except ValueError:
        return "is not a rate such as '10 per 15 minutes'"
    return None
