"""What field work announces, for the domains above it to act on.

Field work sits below notices (``server.DOMAINS``): an inspection may comply a notice, a
notice may order a reinspection, and a tablet shows a parcel's notices, but field code
cannot call the notices domain without the two depending on each other. So field work
announces what happened, or asks what the domains above it have to add, through these
signals, and a higher domain connects its receivers for its app in its ``init_app`` (as the
rules domain registers its write hook on the feature layers).

The signals are blinker's, the library Flask's own signals use. Each is sent with the
current app as sender, so a receiver connected for one app (``sender=app``) never hears
another app in the same process (the tests build one app per database).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from blinker import Namespace
from flask import Flask, current_app

_signals = Namespace()

#: An inspection was stored and evaluated (its violations opened), in the push's
#: transaction. Keywords: ``inspection``, ``observed_on`` (its day on the city's calendar),
#: ``actor``. A receiver returns the ids of the violations it resolved because of it.
inspection_stored = _signals.signal("inspection-stored")

#: An inspection is about to be stored: checked against its checklist, nothing written yet.
#: Keywords: ``template_id``, ``parcel_id``, ``answers``, ``actor``. A receiver that refuses it
#: raises (a domain error the push's result carries: a tap recorded without a tap permit).
inspection_checking = _signals.signal("inspection-checking")

#: An open assignment is about to be called off. Keyword: ``assignment``. A receiver that
#: needs it kept raises (a domain error the caller sees); nothing has been written yet.
assignment_cancelling = _signals.signal("assignment-cancelling")

#: An inspector was sent to a parcel: an assignment was made (by the superintendent, or a
#: reinspection the notices domain ordered), in the write's transaction. Keyword:
#: ``assignment``. Receivers return nothing (the portal tells owners waiting for the visit).
assignment_created = _signals.signal("assignment-created")

#: A tablet pulls an assignment. Keyword: ``assignment``. A receiver returns a dict of
#: fields to add to the assignment as pulled (``{}`` or None for nothing).
assignment_pulled = _signals.signal("assignment-pulled")

#: A tablet pulls parcels' details. Keywords: ``actor``, ``parcel_ids``. A receiver returns
#: ``{parcel_id: {field: value}}`` to add to each parcel's details.
parcels_pulled = _signals.signal("parcels-pulled")

#: A checklist names rules an inspector reads. Keyword: ``known``, the field rules' names so
#: far (read only). A receiver returns ``{rule_id: {"title", "section"}}`` for the rules it
#: declares (a notice kind's, say).
rule_names_wanted = _signals.signal("rule-names-wanted")


def announce(signal, **kwargs: Any) -> list[Any]:
    """Send ``signal`` for the current app; the receivers' return values, in connection order."""
    app = cast(Any, current_app)._get_current_object()  # the app itself, not the proxy
    return [result for _receiver, result in signal.send(app, **kwargs)]


def connect(app: Flask, signal, receiver: Callable[..., Any]) -> None:
    """Have ``receiver`` hear ``signal`` from ``app`` only (held strongly: receivers are
    module functions, and the app's lifetime bounds the connection)."""
    signal.connect(receiver, sender=app, weak=False)
