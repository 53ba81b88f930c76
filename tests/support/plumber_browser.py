"""What the portal's browser walks share (tests/portal/browser): a page at a phone's or a
desk's width that records script errors, logging in, a plumber's registration and the
clerk's check of the license, the served city's today, and a short video the browser
records itself."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from server.core import city as city_context
from server.core.accounts.models import User
from server.core.extensions import db
from server.demo.seed import DEMO_PASSWORD
from server.field.checklist_templates import load_templates
from server.network.models import Parcel
from tests.support.browser import open_page
from tests.support.plumbers import PASSWORD as PLUMBER_PASSWORD

__all__ = ["PLUMBER_PASSWORD", "RECORD_WEBM", "open_page", "log_in", "register", "verify", "served_today",
           "plumber_facts"]

#: Two seconds of a moving square, recorded by the browser itself (VP8 in WebM).
RECORD_WEBM = """async () => {
  const canvas = document.createElement("canvas");
  canvas.width = 160; canvas.height = 120;
  const g = canvas.getContext("2d");
  const recorder = new MediaRecorder(canvas.captureStream(15), {mimeType: "video/webm;codecs=vp8"});
  const parts = [];
  recorder.ondataavailable = (e) => parts.push(e.data);
  const done = new Promise((resolve) => { recorder.onstop = resolve; });
  recorder.start();
  const started = performance.now();
  await new Promise((resolve) => {
    const draw = () => {
      const t = performance.now() - started;
      g.fillStyle = "#334"; g.fillRect(0, 0, 160, 120);
      g.fillStyle = "#fc3"; g.fillRect((t / 20) % 140, 50, 20, 20);
      if (t < 2000) requestAnimationFrame(draw); else resolve();
    };
    draw();
  });
  recorder.stop();
  await done;
  const bytes = new Uint8Array(await new Blob(parts, {type: "video/webm"}).arrayBuffer());
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text);
}"""


def log_in(page, url: str, username: str, password: str, lands: str) -> None:
    page.goto(f"{url}/login?next={lands}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}{lands}")


def register(page, url: str, username: str, expires: str) -> None:
    page.goto(f"{url}/portal/plumbers/register")
    number = f"MP-{sum(map(ord, username)) * 997 % 1000000:06d}"
    for field, value in (("name", f"Dana {username.title()}"), ("company", "Kulig Plumbing"),
                         ("license_number", number), ("expires_on", expires),
                         ("email", f"{username}@example.org"), ("phone", "608-555-0190"), ("username", username),
                         ("password", PLUMBER_PASSWORD)):
        page.fill(f"#{field}", value)
    page.click("button[type=submit]")
    assert "The clerk will check your license" in page.inner_text("main")


def verify(chromium, url: str, username: str) -> None:
    context, desk = open_page(chromium, 1280)
    log_in(desk, url, "clerk", DEMO_PASSWORD, "/plumbers/")
    row = desk.locator("[data-section=plumbers] tr", has_text=f"Dana {username.title()}")
    row.locator("button").click()
    desk.wait_for_url(f"{url}/plumbers/")
    assert desk.errors == []
    context.close()


def plumber_facts(own_served_city) -> dict:
    """A parcel of the demo city to apply for, the demo inspector, and a year ahead (and the
    checklists, which an inspection's assignment names)."""
    with own_served_city.app.app_context():
        load_templates()
        db.session.commit()
        parcel = db.session.scalar(select(Parcel.parcel_number).order_by(Parcel.id).limit(1))
        inspector = db.session.scalar(select(User.id).filter_by(username="inspector"))
        expires = (city_context.current().today() + timedelta(days=365)).isoformat()
    return {"parcel": parcel, "inspector": inspector, "expires": expires}


def served_today(own_served_city) -> str:
    with own_served_city.app.app_context():
        return city_context.current().today().isoformat()
