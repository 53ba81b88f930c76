"""The portal's words pass through here, so that they can be translated.

Until the catalogues (Flask-Babel, English and Spanish) are wired in, ``_`` returns the
English text with its ``%(name)s`` fields filled. Templates call ``{{ _("...") }}`` and
Python calls :func:`_`; neither changes when the catalogues arrive.
"""

from __future__ import annotations


def _(text: str, **fields: object) -> str:
    """The text in the reader's language (today: English), with ``fields`` filled in."""
    return text % fields if fields else text


def init_app(app) -> None:
    """Make ``_`` available to every template (Flask-Babel will replace it)."""
    app.jinja_env.globals.setdefault("_", _)
