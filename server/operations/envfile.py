"""An environment file read the way systemd's ``EnvironmentFile=`` reads it.

``docs/deploy.md``'s ``/etc/lateral/lateral.env`` is read by the service units, not by a
shell. systemd's reader differs from ``. lateral.env`` where it matters: a ``#`` after a
value is not a comment but part of the value (``LATERAL_RULEBOOK=arcadia   # or …`` names
a rulebook called ``arcadia   # or …``). ``flask --app server doctor --env-file`` reads
the file with :func:`read_environment_file`, so what it checks is what the service gets.
"""

from __future__ import annotations

import re
from pathlib import Path

# A " #" inside a value: a comment systemd kept as part of the value.
_TRAILING_COMMENT = re.compile(r"\s#")
_DOUBLE_QUOTE_ESCAPES = '"\\`$'


def read_environment_file(path: str | Path) -> dict[str, str]:
    """The variables of ``path`` as systemd's ``EnvironmentFile=`` sets them.

    Lines that start with ``#`` or ``;`` are comments; ``KEY=VALUE`` sets a variable, the
    whitespace around the key and the value trimmed. A value may be in single quotes
    (taken as written) or double quotes (a backslash escapes ``" \\ ` $``); unquoted, a
    backslash escapes the next character and one at the end of a line continues the
    value on the next. Nothing after a value is a comment. A line without ``=`` is
    ignored, as systemd ignores it.
    """
    return parse_environment(Path(path).read_text(encoding="utf-8"))


def parse_environment(text: str) -> dict[str, str]:
    """:func:`read_environment_file` of a text."""
    values: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].lstrip()
        i += 1
        if not line or line[0] in "#;" or "=" not in line:
            continue
        key, raw = line.split("=", 1)
        value, i = _value(raw.lstrip(), lines, i)
        values[key.strip()] = value
    return values


def _value(raw: str, lines: list[str], i: int) -> tuple[str, int]:
    """The value starting at ``raw`` (continued on later lines), and the next line's index."""
    if raw[:1] in ("'", '"'):
        quote, pos = raw[0], 1
        out: list[str] = []
        while True:
            while pos < len(raw):
                ch = raw[pos]
                if ch == quote:
                    return "".join(out) + raw[pos + 1:].strip(), i
                if quote == '"' and ch == "\\" and pos + 1 < len(raw) and raw[pos + 1] in _DOUBLE_QUOTE_ESCAPES:
                    out.append(raw[pos + 1])
                    pos += 2
                    continue
                if quote == '"' and ch == "\\" and pos + 1 == len(raw):
                    break  # a continued line inside double quotes
                out.append(ch)
                pos += 1
            else:
                out.append("\n")
            if i >= len(lines):
                return "".join(out), i
            raw, pos, i = lines[i], 0, i + 1
    out = []
    while True:
        pos, continued = 0, False
        while pos < len(raw):
            ch = raw[pos]
            if ch == "\\":
                if pos + 1 == len(raw):
                    continued = True
                    break
                out.append(raw[pos + 1])
                pos += 2
                continue
            out.append(ch)
            pos += 1
        if not continued or i >= len(lines):
            return "".join(out).rstrip(), i
        raw, i = lines[i], i + 1


def commented_values(values: dict[str, str]) -> dict[str, str]:
    """The variables whose value carries a ``#`` comment that systemd kept in it."""
    return {key: value for key, value in values.items() if _TRAILING_COMMENT.search(value)}
