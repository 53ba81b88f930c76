"""The CLI drives the workflow: draft, approve, mail, deliver, list, and any other event."""

from __future__ import annotations

from datetime import timedelta

from server.core.extensions import db
from server.notices.models import Notice
from tests.support.city_calendar import city_today
from tests.support.notices import approved_by, printed_back


def _run(app, *args):
    result = app.test_cli_runner().invoke(args=["notices", *args])
    return result


def test_cli_walks_a_notice_from_draft_to_complied(app, violation, tmp_path):
    result = _run(app, "draft", "--as", "superintendent1")
    assert result.exit_code == 0, result.output
    notice = db.session.query(Notice).one()
    assert "1 notices drafted" in result.output and notice.state == "draft"
    assert _run(app, "approve", str(notice.id), "--as", "superintendent1").exit_code == 0
    mailed_on = (city_today() - timedelta(days=3)).isoformat()
    approved_by([notice.id], city_today() - timedelta(days=3))
    result = _run(app, "print", str(notice.id), "--as", "clerk1", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    db.session.refresh(notice)
    assert notice.state == "approved" and notice.article_number in result.output  # printed, not mailed
    assert (tmp_path / f"mailing-{notice.batch_id}-letters.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / f"mailing-{notice.batch_id}-book.pdf").exists()
    printed_back(notice.batch_id, city_today() - timedelta(days=3))
    db.session.commit()
    result = _run(app, "record", str(notice.batch_id), "--as", "clerk1", "--count", "1", "--date", mailed_on)
    assert result.exit_code == 0, result.output
    db.session.refresh(notice)
    assert notice.state == "mailed"
    result = _run(app, "deliver", str(notice.id), "--as", "clerk1", "--on", city_today().isoformat())
    assert result.exit_code == 0, result.output
    assert "clock starts on delivery" in result.output
    listed = _run(app, "list", "--state", "delivered")
    assert str(notice.id) in listed.output and notice.parcel_number in listed.output
    assert _run(app, "event", str(notice.id), "comply", "--as", "superintendent1",
                "--note", "reinspected with the owner").exit_code == 0
    db.session.refresh(notice)
    assert notice.state == "complied"


def test_cli_holds_users_to_their_role(app, violation):
    _run(app, "draft", "--as", "superintendent1")
    notice = db.session.query(Notice).one()
    result = _run(app, "approve", str(notice.id), "--as", "clerk1")
    assert result.exit_code != 0 and "forbidden" in result.output
    db.session.refresh(notice)
    assert notice.state == "draft"


def test_cli_names_a_forbidden_transition(app, violation):
    _run(app, "draft", "--as", "superintendent1")
    notice = db.session.query(Notice).one()
    result = _run(app, "deliver", str(notice.id), "--as", "clerk1")
    assert result.exit_code != 0 and "invalid_transition" in result.output and "draft" in result.output


def test_cli_shows_held_notices_with_the_reason(app):
    from tests.support.notices import NO_STREET, add_parcel, add_violation

    add_violation(add_parcel(NO_STREET))
    _run(app, "draft", "--as", "superintendent1")
    result = _run(app, "list", "--state", "held")
    assert "HELD: the tax roll has no mailing street" in result.output
