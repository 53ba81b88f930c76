"""Field work tells the notices domain what happened through signals, one app at a time.

Field work sits below notices (docs/architecture.md), so it announces
(:mod:`server.field.events`) and the notices domain's receivers act
(:mod:`server.notices.field_work`). These tests hold the mechanism: each domain hears only
its own app, what a receiver returns reaches the announcer, a receiver's refusal stops the
change, and the notices domain is connected by the factory.
"""

from __future__ import annotations

import pytest
from flask import Flask

from server.core.errors import LateralError
from server.field import events


def test_a_receiver_hears_only_the_app_it_was_connected_for():
    one, other = Flask("one"), Flask("other")
    heard = []
    events.connect(one, events.parcels_pulled, lambda app, **kw: heard.append(app.name) or {})
    with other.app_context():
        assert events.announce(events.parcels_pulled, actor=None, parcel_ids=[1]) == []
    with one.app_context():
        assert events.announce(events.parcels_pulled, actor=None, parcel_ids=[1]) == [{}]
    assert heard == ["one"]


def test_what_the_receivers_return_reaches_the_announcer_in_order():
    app = Flask("returns")
    events.connect(app, events.rule_names_wanted, lambda _app, known: {"A": {"title": "first"}})
    events.connect(app, events.rule_names_wanted, lambda _app, known: {"B": {"title": "second", "seen": len(known)}})
    with app.app_context():
        assert events.announce(events.rule_names_wanted, known={"X": {}}) == [
            {"A": {"title": "first"}}, {"B": {"title": "second", "seen": 1}}]


def test_a_receiver_that_refuses_stops_the_announcer():
    app = Flask("refuses")

    def refuse(_app, assignment):
        raise LateralError("ordered_by_notice", "kept")

    events.connect(app, events.assignment_cancelling, refuse)
    with app.app_context(), pytest.raises(LateralError) as refused:
        events.announce(events.assignment_cancelling, assignment=object())
    assert refused.value.code == "ordered_by_notice"


@pytest.mark.parametrize("signal", [events.inspection_stored, events.assignment_cancelling,
                                    events.assignment_pulled, events.parcels_pulled, events.rule_names_wanted],
                         ids=lambda s: s.name)
def test_the_factory_connects_the_notices_domain_to_every_field_signal(app, signal):
    from server.notices import field_work

    receivers = [r for r in signal.receivers_for(app)]
    assert any(getattr(r, "__module__", "") == field_work.__name__ for r in receivers)
