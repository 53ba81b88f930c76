"""Users (/users/): the administrator adds, disables, re-enables and resets logins; nobody else may."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from server.core.accounts.models import User
from server.core.audit.models import AuditEvent
from server.core.extensions import db
from tests.support.databases import PASSWORD
from tests.support.office import audit_rows

GOOD = "quartz lantern orchard 42"


def _user(username: str) -> User | None:
    return db.session.scalar(select(User).where(User.username == username))


def _users() -> int:
    return db.session.scalar(select(func.count(User.id)))


@pytest.mark.parametrize("role", ["inspector", "clerk", "superintendent"])
@pytest.mark.parametrize(("method", "path"), [("get", "/users/"), ("post", "/users/"), ("post", "/users/1/active"),
                                              ("get", "/users/1/password"), ("post", "/users/1/password")])
def test_only_the_administrator_may_come(office, role, method, path):
    session = office(f"{role}1")
    before = _users()
    r = session.get(path) if method == "get" else session.post(
        path, {"username": "sneaky", "role": "admin", "password": GOOD, "confirm_password": GOOD, "active": "0",
               "new_password": GOOD})
    assert r.status_code == 403
    assert _users() == before and _user("sneaky") is None


def test_list_shows_every_user_with_their_role(office):
    html = office("admin1").get("/users/").get_data(as_text=True)
    for role in ("inspector", "superintendent", "clerk", "admin"):
        assert f'<tr data-user="{role}1"' in html
    assert "password_hash" not in html and "scrypt" not in html


def test_admin_adds_a_user_who_can_log_in(office, client):
    before = audit_rows()
    r = office("admin1").post("/users/", {"username": "kari.h", "display_name": "Kari Halverson",
                                          "role": "inspector", "password": GOOD, "confirm_password": GOOD}, follow=True)
    html = r.get_data(as_text=True)
    assert "Kari Halverson (kari.h) can now log in as inspector." in html
    assert GOOD not in html
    assert _user("kari.h").role == "inspector"
    assert audit_rows() == before + 1
    client.post("/logout", data={"csrf_token": ""})
    assert client.post("/login", data={"username": "kari.h", "password": GOOD}).status_code == 302


REFUSED = {
    "weak password": ({"password": "password1", "confirm_password": "password1"}, 422, "the password"),
    "short password": ({"password": "abc", "confirm_password": "abc"}, 422, "at least 10 characters"),
    "passwords differ": ({"confirm_password": GOOD + "x"}, 422, "the two passwords differ"),
    "bad username": ({"username": "Kari H!"}, 422, "lower-case letters"),
    "no role": ({"role": ""}, 422, "role"),
    "unknown role": ({"role": "mayor"}, 422, "role"),
    "username taken": ({"username": "clerk1"}, 409, "already exists"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_refused_user_is_not_added(office, case):
    change, status, words = REFUSED[case]
    data = {"username": "newbie", "display_name": "New Bie", "role": "clerk", "password": GOOD,
            "confirm_password": GOOD, **change}
    before, users = audit_rows(), _users()
    r = office("admin1").post("/users/", data)
    html = r.get_data(as_text=True)
    assert r.status_code == status
    assert "No user was added" in html and words in html
    assert _users() == users and audit_rows() == before
    # What was typed comes back, except the passwords.
    assert f'value="{data["username"]}"' in html
    assert data["password"] not in html.replace("the password", "")


def test_disabling_ends_the_users_sessions_and_enabling_lets_them_back(app, office):
    other = app.test_client()
    assert other.post("/login", data={"username": "clerk1", "password": PASSWORD}).status_code == 302
    assert other.get("/desk/").status_code == 200
    clerk = _user("clerk1")
    admin = office("admin1")
    r = admin.post(f"/users/{clerk.id}/active", {"active": "0"}, follow=True)
    assert "clerk1 is disabled; their sessions have ended." in r.get_data(as_text=True)
    db.session.refresh(clerk)
    assert clerk.active is False
    assert other.get("/desk/").status_code == 302  # back to the login form
    assert other.post("/login", data={"username": "clerk1", "password": PASSWORD}).status_code == 401
    r = admin.post(f"/users/{clerk.id}/active", {"active": "1"}, follow=True)
    assert "clerk1 may log in again." in r.get_data(as_text=True)
    assert other.post("/login", data={"username": "clerk1", "password": PASSWORD}).status_code == 302
    actions = db.session.scalars(select(AuditEvent.after).where(AuditEvent.subject_type == "user",
                                                                AuditEvent.subject_id == clerk.id,
                                                                AuditEvent.action == "update")).all()
    assert [a["active"] for a in actions][-2:] == [False, True]


def test_the_administrator_cannot_disable_their_own_login(office):
    me = _user("admin1")
    before = audit_rows()
    r = office("admin1").post(f"/users/{me.id}/active", {"active": "0"})
    assert r.status_code == 422 and "you cannot disable your own login" in r.get_data(as_text=True)
    db.session.refresh(me)
    assert me.active is True and audit_rows() == before


def test_a_malformed_active_value_is_400(office):
    assert office("admin1").post(f"/users/{_user('clerk1').id}/active", {"active": "maybe"}).status_code == 400


def test_reset_password_shows_the_policy_and_sets_a_good_one(app, office):
    clerk = _user("clerk1")
    admin = office("admin1")
    assert admin.get(f"/users/{clerk.id}/password").status_code == 200
    old_hash = clerk.password_hash
    weak = admin.post(f"/users/{clerk.id}/password", {"new_password": "qwertyuiop", "confirm_password": "qwertyuiop"})
    assert weak.status_code == 422 and "the password is too easy to guess" in weak.get_data(as_text=True)
    assert "qwertyuiop" not in weak.get_data(as_text=True)
    db.session.refresh(clerk)
    assert clerk.password_hash == old_hash
    r = admin.post(f"/users/{clerk.id}/password", {"new_password": GOOD, "confirm_password": GOOD}, follow=True)
    html = r.get_data(as_text=True)
    assert "The password of clerk1 is set" in html and GOOD not in html
    other = app.test_client()
    assert other.post("/login", data={"username": "clerk1", "password": PASSWORD}).status_code == 401
    assert other.post("/login", data={"username": "clerk1", "password": GOOD}).status_code == 302
    assert db.session.scalar(select(func.count(AuditEvent.id)).where(
        AuditEvent.action == "set_password", AuditEvent.subject_id == clerk.id)) == 1


def test_reset_password_needs_both_fields_alike(office):
    clerk = _user("clerk1")
    old_hash, before = clerk.password_hash, audit_rows()
    r = office("admin1").post(f"/users/{clerk.id}/password", {"new_password": GOOD, "confirm_password": "x"})
    assert r.status_code == 422 and "the two passwords differ" in r.get_data(as_text=True)
    db.session.refresh(clerk)
    assert clerk.password_hash == old_hash and audit_rows() == before


def test_unknown_user_is_404(office):
    assert office("admin1").get("/users/987654/password").status_code == 404
