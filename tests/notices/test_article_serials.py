"""Article numbers are never reused, even when batches are mailed at the same time."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest
from sqlalchemy import select

from gis.rulebook import RULEBOOK_DIR
from server.core import city
from server.core.city import City
from server.core.dialects import begin_write
from server.core.extensions import db
from server.notices.article_numbers import is_valid
from server.notices.models import ArticleSerial
from tests.support.databases import PASSWORD
from tests.support.notices import add_parcel, add_violation, post

THREADS, PER_BATCH = 8, 5


def _reserve(app, barrier: Barrier) -> list[str]:
    from server.notices.clock import rulebook
    from server.notices.mailing import reserve_article_numbers

    with app.app_context():
        barrier.wait()
        begin_write(db.session)
        numbers = reserve_article_numbers(PER_BATCH, rulebook())
        db.session.commit()
        db.session.remove()
        return numbers


def test_concurrent_reservations_never_share_a_serial(committed_app):
    barrier = Barrier(THREADS)
    with ThreadPoolExecutor(THREADS) as pool:
        batches = list(pool.map(lambda _: _reserve(committed_app, barrier), range(THREADS)))
    numbers = [n for batch in batches for n in batch]
    assert len(set(numbers)) == THREADS * PER_BATCH and all(is_valid(n) for n in numbers)
    assert sorted(int(n[14:21]) for n in numbers) == list(range(1, THREADS * PER_BATCH + 1))
    for batch in batches:  # each batch got a consecutive run
        serials = [int(n[14:21]) for n in batch]
        assert serials == list(range(serials[0], serials[0] + PER_BATCH))
    with committed_app.app_context():
        assert db.session.scalar(select(ArticleSerial.last_used)) == THREADS * PER_BATCH


def test_concurrent_mailings_over_the_api_get_distinct_article_numbers(committed_app):
    from server.core.accounts.service import create_user, issue_token

    with committed_app.app_context():
        tokens = {}
        for role in ("superintendent", "clerk"):
            tokens[role] = {"Authorization": f"Bearer {issue_token(create_user(f'{role}9', role, PASSWORD), 't')[0]}"}
        for _ in range(THREADS):
            add_violation(add_parcel())
        db.session.commit()
        client = committed_app.test_client()
        ids = [n["id"] for n in post(client, tokens, "superintendent", "/notices/draft").get_json()]
        for notice_id in ids:
            assert post(client, tokens, "superintendent", f"/notices/{notice_id}/approve").status_code == 200
        db.session.remove()
    barrier = Barrier(THREADS)

    def mail(notice_id):
        c = committed_app.test_client()
        barrier.wait()
        r = post(c, tokens, "clerk", "/mailings", {"notice_ids": [notice_id]})
        return r.status_code, r.get_json()

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(mail, ids))
    assert [status for status, _ in results] == [201] * THREADS, results
    numbers = [body["article_numbers"][0] for _, body in results]
    assert len(set(numbers)) == THREADS


@pytest.fixture
def tiny_range(app, tmp_path, monkeypatch):
    """A rulebook whose serial range holds three article numbers."""
    text = (RULEBOOK_DIR / "arcadia.toml").read_text()
    assert "serial_last = 9999999" in text
    path = tmp_path / "tiny.toml"
    path.write_text(text.replace("serial_last = 9999999", "serial_last = 3"))
    monkeypatch.setitem(app.extensions, city.EXTENSION, City.from_config({"LATERAL_RULEBOOK": str(path)}))


def test_exhausted_range_is_a_clear_409_and_mails_nothing(client, auth, tiny_range):
    for _ in range(4):
        add_violation(add_parcel())
    ids = [n["id"] for n in post(client, auth, "superintendent", "/notices/draft").get_json()]
    for notice_id in ids:
        post(client, auth, "superintendent", f"/notices/{notice_id}/approve")
    assert post(client, auth, "clerk", "/mailings", {"notice_ids": ids[:2]}).status_code == 201
    r = post(client, auth, "clerk", "/mailings", {"notice_ids": ids[2:]})
    assert r.status_code == 409
    error = r.get_json()["error"]
    assert error["code"] == "article_numbers_exhausted" and "serial_last" in error["message"]
    assert error["details"] == {"requested": 2, "serial_first": 1, "serial_last": 3}
    states = [client.get(f"/api/v1/notices/{i}", headers=auth["clerk"]).get_json()["state"] for i in ids[2:]]
    assert states == ["approved", "approved"]
    assert post(client, auth, "clerk", "/mailings", {"notice_ids": ids[2:3]}).status_code == 201


def test_a_new_serial_range_starts_at_its_first_serial(client, auth, app, tmp_path, monkeypatch):
    add_violation(add_parcel())
    add_violation(add_parcel())
    ids = [n["id"] for n in post(client, auth, "superintendent", "/notices/draft").get_json()]
    for notice_id in ids:
        post(client, auth, "superintendent", f"/notices/{notice_id}/approve")
    first = post(client, auth, "clerk", "/mailings", {"notice_ids": ids[:1]}).get_json()["article_numbers"][0]
    text = (RULEBOOK_DIR / "arcadia.toml").read_text().replace("serial_first = 1\n", "serial_first = 5000\n")
    (tmp_path / "moved.toml").write_text(text)
    moved = City.from_config({"LATERAL_RULEBOOK": str(tmp_path / "moved.toml")})
    monkeypatch.setitem(app.extensions, city.EXTENSION, moved)
    second = post(client, auth, "clerk", "/mailings", {"notice_ids": ids[1:]}).get_json()["article_numbers"][0]
    assert (int(first[14:21]), int(second[14:21])) == (1, 5000)
