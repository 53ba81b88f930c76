"""Users in Chromium, as the administrator: the list, a user refused by the password
policy and then added, disabled and enabled again, a password reset; a keyboard-only
step; axe-core on each state."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from server.core.accounts.models import User
from server.core.extensions import db
from tests.support.axe import assert_accessible
from tests.support.browser import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


GOOD = "quartz lantern orchard 42"


@pytest.fixture
def admin_page(chromium, own_served_city):
    from server.demo.seed import DEMO_PASSWORD

    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(f"{own_served_city.url}/login?next=/users/")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{own_served_city.url}/users/")
    yield page
    context.close()


def _user(city, username: str) -> tuple | None:
    with city.app.app_context():
        row = db.session.execute(select(User.role, User.active, User.password_hash)
                                 .where(User.username == username)).first()
        db.session.remove()
        return tuple(row) if row else None


def _can_log_in(chromium, city, username: str, password: str) -> bool:
    context = chromium.new_context()
    page = context.new_page()
    page.goto(f"{city.url}/login")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state()
    ok = page.url.rstrip("/") == city.url
    context.close()
    return ok


def test_admin_adds_disables_enables_and_resets_a_user(admin_page, chromium, own_served_city):
    page = admin_page
    for role in ("inspector", "superintendent", "clerk", "admin"):
        assert page.locator(f"tr[data-user='{role}']").count() == 1
    assert_accessible(page, "users: list")

    form = page.locator("form.create")
    form.locator("input[name=username]").fill("kari.h")
    form.locator("input[name=display_name]").fill("Kari Halverson")
    form.locator("select[name=role]").select_option("inspector")
    form.locator("input[name=password]").fill("password123")
    form.locator("input[name=confirm_password]").fill("password123")
    form.locator("button[type=submit]").click()
    page.wait_for_selector(".flash.error")
    assert "No user was added: the password is too easy to guess" in page.inner_text(".flash.error")
    assert page.get_attribute("form.create input[name=password]", "aria-invalid") == "true"
    assert page.input_value("form.create input[name=username]") == "kari.h"
    assert page.input_value("form.create input[name=password]") == ""
    assert _user(own_served_city, "kari.h") is None
    assert_accessible(page, "users: refused by the password policy")

    form.locator("input[name=password]").fill(GOOD)
    form.locator("input[name=confirm_password]").fill(GOOD)
    form.locator("button[type=submit]").click()
    page.wait_for_selector(".flash.ok")
    assert "Kari Halverson (kari.h) can now log in as inspector." in page.inner_text(".flash.ok")
    assert GOOD not in page.content()
    assert _user(own_served_city, "kari.h")[:2] == ("inspector", True)
    screenshot(page, "users", full_page=True)

    row = page.locator("tr[data-user='kari.h']")
    row.get_by_role("button", name="Disable kari.h").click()
    page.wait_for_selector(".flash.ok")
    assert page.locator("tr[data-user='kari.h'] td[data-status]").inner_text() == "disabled"
    assert _user(own_served_city, "kari.h")[1] is False
    assert not _can_log_in(chromium, own_served_city, "kari.h", GOOD)
    assert_accessible(page, "users: one disabled")
    page.locator("tr[data-user='kari.h']").get_by_role("button", name="Enable kari.h").click()
    page.wait_for_selector(".flash.ok")
    assert _user(own_served_city, "kari.h")[1] is True

    page.locator("tr[data-user='kari.h']").get_by_role("link", name="Reset password of kari.h").click()
    page.wait_for_url("**/users/*/password")
    assert_accessible(page, "users: reset password")
    page.fill("input[name=new_password]", "qwertyuiop")
    page.fill("input[name=confirm_password]", "qwertyuiop")
    page.click("button[type=submit]")
    page.wait_for_selector(".flash.error")
    assert "The password was not changed: the password is too easy to guess" in page.inner_text(".flash.error")
    assert_accessible(page, "users: reset refused")
    old_hash = _user(own_served_city, "kari.h")[2]
    page.fill("input[name=new_password]", GOOD + " again")
    page.fill("input[name=confirm_password]", GOOD + " again")
    page.click("button[type=submit]")
    page.wait_for_selector(".flash.ok")
    assert "The password of kari.h is set" in page.inner_text(".flash.ok")
    assert _user(own_served_city, "kari.h")[2] != old_hash
    assert _can_log_in(chromium, own_served_city, "kari.h", GOOD + " again")
    assert page.errors == []


def test_keyboard_only(admin_page, own_served_city):
    """Add a user with the keyboard alone: Tab to each field, type, choose the role, Enter."""
    page = admin_page
    page.locator("form.create input[name=username]").focus()
    page.keyboard.type("lee.keys")
    for text in ["Lee Keyboard", None, GOOD, GOOD]:
        page.keyboard.press("Tab")
        assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
        if text is None:
            page.keyboard.type("clerk")  # the select takes the option typed
        else:
            page.keyboard.type(text)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Add user"
    page.keyboard.press("Enter")
    page.wait_for_selector(".flash.ok")
    assert "Lee Keyboard (lee.keys) can now log in as clerk." in page.inner_text(".flash.ok")
    assert _user(own_served_city, "lee.keys")[:2] == ("clerk", True)
    assert_accessible(page, "users: after keyboard add")


def test_at_tablet_width_nothing_scrolls_sideways(admin_page):
    page = admin_page
    page.set_viewport_size({"width": 768, "height": 1024})
    page.reload()
    assert page.evaluate("document.documentElement.scrollWidth") <= 768
    assert page.get_by_role("button", name="Log out").is_visible()
    assert_accessible(page, "users at 768 px")
