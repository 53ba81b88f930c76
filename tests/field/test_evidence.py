"""A notice closes through evidence from whoever holds the work (issue 15, row 2): an
inspector's passing reinspection counts only on a parcel assigned to them."""

from __future__ import annotations

import pytest

from server.core.accounts.service import create_user, issue_token
from server.core.extensions import db
from server.notices.tick import tick
from tests.support.databases import PASSWORD
from tests.support.resolutions import CW, notice, reinspection, sump_pump_notice, violation_props
from tests.support.sync import assign, push, record


@pytest.fixture
def stranger(app) -> dict:
    """Another inspector, assigned nothing here: their Authorization header."""
    user = create_user("inspector2", "inspector", PASSWORD, "Other Inspector")
    token = issue_token(user, "pytest")[0]
    db.session.commit()
    return {"Authorization": f"Bearer {token}"}


def test_a_passing_reinspection_by_an_unassigned_inspector_closes_nothing(client, auth, templates, parcel_id,
                                                                           stranger):
    vid, notice_id = sump_pump_notice(client, auth, parcel_id)
    [result] = push(client, stranger, record(reinspection(parcel_id, CW)))
    assert (result["status"], result["result"]) == (201, "pass"), result
    assert violation_props(client, auth, vid)["status"] == "open"
    assert notice(client, auth, notice_id)["state"] == "delivered"
    assert tick()["complied"] == []  # nor does the daily run take it as evidence


def test_once_assigned_the_same_visit_complies_the_notice(client, auth, templates, parcel_id, stranger):
    vid, notice_id = sump_pump_notice(client, auth, parcel_id)
    assign(parcel_id, "reinspection", username="inspector2")
    [result] = push(client, stranger, record(reinspection(parcel_id, CW)))
    assert violation_props(client, auth, vid)["status"] == "resolved"
    after = notice(client, auth, notice_id)
    assert (after["state"], after["complied_reason"]) == ("complied", f"resolved by inspection {result['server_id']}")
