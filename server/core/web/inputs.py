"""No 5xx from input: values no column or calendar can hold are refused at the door.

One guard for every request (query string, form fields, path values) and one for JSON
bodies (:func:`check_json`, called by :func:`server.core.web.body.load_json`):

- integers outside a signed 32-bit column (ids, ``after``, ``offset``: PostgreSQL's
  ``integer``, which every id and count column is) → 422 naming the field;
- strings holding a NUL character, which PostgreSQL cannot store and SpatiaLite would
  store silently → 422 naming the field;
- anything shaped like a date (``YYYY-MM-DD…``) outside the years 1800–2200, where the
  legal calendar's arithmetic would overflow (``served=9999-12-31``) → 422;
- JSON nested deeper than ``MAX_JSON_DEPTH`` → 400.

Path integers go through :class:`BoundedInt`, Flask's ``int`` converter with the same
range.
"""

from __future__ import annotations

import re

from flask import request
from werkzeug.exceptions import UnprocessableEntity
from werkzeug.routing import IntegerConverter

from server.core.errors import LateralError, invalid_fields

# PostgreSQL's integer; SQLite's is 64-bit, so the narrower bound holds on both.
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
# GeoJSON is three levels deep at most (geometry coordinates of a multipolygon: five);
# nothing Lateral reads comes near this.
MAX_JSON_DEPTH = 32
YEARS = (1800, 2200)
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_DATE = re.compile(r"([0-9]{4,})-[0-9]{2}-[0-9]{2}", re.ASCII)


def problem_with(value: str) -> str | None:
    """Why a text value cannot be taken, or None."""
    if "\x00" in value:
        return "may not contain a NUL character"
    number = value.strip()
    # More than 20 characters is out of range without parsing it.
    if _INTEGER.fullmatch(number) and (len(number) > 20 or not INT_MIN <= int(number) <= INT_MAX):
        return f"must be between {INT_MIN} and {INT_MAX}"
    date = _DATE.match(value)
    if date and not YEARS[0] <= int(date.group(1)) <= YEARS[1]:
        return f"must be a date between the years {YEARS[0]} and {YEARS[1]}"
    return None


def check_request() -> None:
    """before_request: the query string, form fields and path values of every request.

    Path values are only checked for NUL: an all-digit path string (a photo's SHA-256)
    is a name, and ``<int:…>`` has its own bound (:class:`BoundedInt`).
    """
    bad: dict[str, list[str]] = {}
    fields = [*request.args.items(multi=True)]
    if request.mimetype == "application/x-www-form-urlencoded":
        fields += request.form.items(multi=True)
    for name, value in fields:
        problem = problem_with(value)
        if problem:
            bad.setdefault(name, []).append(problem)
    for name, value in (request.view_args or {}).items():
        if isinstance(value, str) and "\x00" in value:
            bad.setdefault(name, []).append("may not contain a NUL character")
    if bad:
        raise invalid_fields(bad)


def check_json(data) -> None:
    """Refuse a parsed JSON body too deep (400) or holding a value no column takes (422)."""
    stack = [(data, "", 1)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise LateralError("json_too_deep", f"the JSON body is nested deeper than {MAX_JSON_DEPTH} levels",
                               {"max_depth": MAX_JSON_DEPTH})
        if isinstance(value, dict):
            for key, item in value.items():
                where = f"{path}.{key}" if path else str(key)
                if "\x00" in key:
                    raise invalid_fields({where: ["may not contain a NUL character"]})
                stack.append((item, where, depth + 1))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value))
        else:
            problem = _scalar_problem(value)
            if problem:
                raise invalid_fields({path or "_schema": [problem]})


def _scalar_problem(value) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return None if INT_MIN <= value <= INT_MAX else f"must be between {INT_MIN} and {INT_MAX}"
    if isinstance(value, float):
        # NaN and Infinity are the geometry's and the schemas' to refuse, with their reasons.
        return None
    if isinstance(value, str):
        if "\x00" in value:
            return "may not contain a NUL character"
        date = _DATE.match(value)
        if date and not YEARS[0] <= int(date.group(1)) <= YEARS[1]:
            return f"must be a date between the years {YEARS[0]} and {YEARS[1]}"
    return None


class OutOfRange(UnprocessableEntity):
    description = f"an id in the path must be between 0 and {INT_MAX}"


class BoundedInt(IntegerConverter):
    """Flask's ``<int:…>`` within an integer column: larger ids are a 422, not a 500."""

    def to_python(self, value: str) -> int:
        number = super().to_python(value)
        if number > INT_MAX:
            raise OutOfRange()
        return number


def init_app(app) -> None:
    app.url_map.converters["int"] = BoundedInt
    app.before_request(check_request)
