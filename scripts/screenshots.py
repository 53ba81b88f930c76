"""The pictures in ``docs/img/``, from a throw-away demo city as `make run` seeds it.

Run ``scripts/screenshots`` (the virtualenv's Python). It seeds a SpatiaLite demo city of
1,200 parcels with the survey under way (``demo seed``'s default), serves it on a free
port, logs in as each role in Debian's Chromium (the launch arguments of
``tests/support/browser.py``) and saves each page in :data:`PAGES` as
``docs/img/<name>.png``, reduced to a 256-colour palette to keep the repository small.
A page the server answers 404 (not built yet) is skipped and said so.

To add a page, add a :class:`Shot` to :data:`PAGES`: its file name, who logs in, the
path (``{parcel}``, ``{notice}`` and ``{violation}`` are filled from the seeded city),
the viewport, and optionally a ``ready`` selector to wait for or a ``then`` step (a
function of the page and the city) run before the picture.
"""

from __future__ import annotations

import io
import secrets
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

OUT = REPO / "docs" / "img"
DESKTOP = (1280, 800)
TABLET = (768, 1024)


@dataclass(frozen=True)
class Shot:
    name: str
    role: str
    path: str
    size: tuple[int, int] = DESKTOP
    ready: str | None = None
    then: Callable | None = None
    full_page: bool = False


def _map_ready(page, city) -> None:
    page.wait_for_function("() => Number(document.body.dataset.parcelsLoaded || 0) > 0", timeout=30000)
    page.wait_for_function("() => document.getElementById('map-status').textContent === ''", timeout=30000)
    page.wait_for_timeout(800)


def _field_parcel(page, city, key: str = "parcel") -> None:
    """The parcel page: by default the overdue notice's parcel (its reinspection is due today)."""
    page.click(f".parcel-card[data-parcel='{city[key]}']")
    page.wait_for_selector(".parcel .start button.primary")
    page.wait_for_timeout(600)


def _field_inspection(page, city) -> None:
    _field_parcel(page, city, "survey_parcel")
    page.click(".parcel .start button.primary")
    page.wait_for_function("() => location.hash.startsWith('#/inspection/')")
    page.click("button.choice[data-value=granted]")  # access granted: the sources appear
    page.get_by_text("Add source").click()
    page.click("button.choice[data-value=sump_pump]")
    page.click("button.choice[data-value=sanitary_sewer]")
    page.wait_for_timeout(600)


def _assign_block(page, city) -> None:
    """A block picked with a drawn rectangle, a checklist and an inspector chosen."""
    page.wait_for_function("() => Number(document.body.dataset.parcelsLoaded || 0) > 0", timeout=30000)
    box = page.locator("#map").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.click("#draw-rectangle")
    page.mouse.move(cx - 110, cy - 70)
    page.mouse.down()
    page.mouse.move(cx + 110, cy + 70, steps=5)
    page.mouse.up()
    page.select_option("select[name=template_id]", "clear-water-survey")
    page.select_option("select[name=inspector_id]", index=1)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(600)


PAGES: list[Shot] = [
    Shot("notice-desk", "clerk", "/desk/", full_page=False),
    Shot("map", "superintendent", "/map?parcel={parcel}", then=_map_ready),
    Shot("dashboard", "superintendent", "/dashboard"),
    Shot("field-app", "inspector", "/field/", TABLET, ready=".parcel-card"),
    Shot("field-parcel", "inspector", "/field/", TABLET, ready=".parcel-card", then=_field_parcel),
    Shot("field-inspection", "inspector", "/field/", TABLET, ready=".parcel-card", then=_field_inspection),
    # The superintendent's and the administrator's pages (issue 16); skipped until they exist.
    Shot("assign-work", "superintendent", "/assign/", then=_assign_block),
    Shot("run-the-rules", "superintendent", "/rules/"),
    Shot("violation", "superintendent", "/rules/violations/{violation}"),
    Shot("draft-notices", "superintendent", "/rules/notices"),
    Shot("review", "superintendent", "/review/", full_page=True),
    Shot("users", "admin", "/users/"),
]


def seed(tmp: Path):
    """A migrated SpatiaLite app holding `make run`'s demo city; the ids the pages need."""
    from flask_migrate import upgrade
    from sqlalchemy import select

    from server import create_app
    from server.core.extensions import db
    from server.demo import seed as demo
    from server.field.api.photos import BLOBS
    from server.field.models import Assignment
    from server.notices.models import Notice
    from server.rules.models import Violation

    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp / 'lateral.sqlite'}",
                      "SECRET_KEY": secrets.token_hex(32),
                      "BLOB_STORE": {"backend": "local", "root": str(tmp / "blobs")},
                      "TUS_STAGING_DIR": str(tmp / "tus")})
    with app.app_context():
        upgrade()
        print(demo.seed(living=True, blobs=app.extensions[BLOBS], progress=print), flush=True)
        db.session.commit()
        overdue = db.session.scalars(select(Notice).where(Notice.state == "overdue")).first()
        survey = db.session.scalars(select(Assignment).where(Assignment.template_id == "clear-water-survey",
                                                             Assignment.status == "open")
                                    .order_by(Assignment.id)).first()
        # An inspection's violation: the page then shows its evidence photos too.
        violation = db.session.scalars(select(Violation).where(Violation.status == "open")
                                       .order_by(Violation.source != "inspection", Violation.id)).first()
        ids = {"parcel": overdue.parcel_id if overdue else 1, "notice": overdue.id if overdue else 1,
               "violation": violation.id if violation else 1, "survey_parcel": survey.parcel_id if survey else 1}
    return app, ids


def log_in(page, url: str, shot: Shot) -> None:
    from server.demo.seed import DEMO_PASSWORD

    if shot.path.startswith("/field/"):
        page.goto(f"{url}/field/")
        page.wait_for_selector("#username")
        page.fill("#username", shot.role)
        page.fill("#password", DEMO_PASSWORD)
        page.click("button[type=submit]")
        return
    page.goto(f"{url}/login")
    page.fill("input[name=username]", shot.role)
    page.fill("input[name=password]", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/")


def small_png(png: bytes) -> bytes:
    """The picture in a 256-colour palette (a third of the size, no visible loss on these pages)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def take(browser, url: str, city: dict, shot: Shot) -> str:
    context = browser.new_context(viewport={"width": shot.size[0], "height": shot.size[1]},
                                  service_workers="block")
    try:
        page = context.new_page()
        log_in(page, url, shot)
        path = shot.path.format(**city)
        if not path.startswith("/field/"):
            response = page.goto(f"{url}{path}")
            if response is None or response.status == 404:
                return f"{shot.name}: {path} answers 404, skipped"
            if response.status >= 400:
                return f"{shot.name}: {path} answers {response.status}, skipped"
        if shot.ready:
            page.wait_for_selector(shot.ready, timeout=30000)
        if shot.then:
            shot.then(page, city)
        page.wait_for_load_state("networkidle")
        data = small_png(page.screenshot(full_page=shot.full_page))
        (OUT / f"{shot.name}.png").write_bytes(data)
        return f"{shot.name}: {path} -> docs/img/{shot.name}.png ({len(data) // 1024} KB)"
    finally:
        context.close()


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    from tests.support.browser import CHROMIUM, LAUNCH_ARGS

    wanted = [s for s in PAGES if not argv or s.name in argv]
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lateral-screenshots-") as tmp:
        app, city = seed(Path(tmp))
        server = make_server("127.0.0.1", 0, app, threaded=True)
        url = f"http://127.0.0.1:{server.socket.getsockname()[1]}"
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
                try:
                    for shot in wanted:
                        print(take(browser, url, city, shot), flush=True)
                finally:
                    browser.close()
        finally:
            server.shutdown()
            thread.join(timeout=5)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
