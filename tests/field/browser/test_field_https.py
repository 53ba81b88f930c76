"""The field app served as a city serves it: Debian's nginx with TLS (a self-signed
certificate) in front of gunicorn, under a real host name, not localhost.

Only HTTPS makes ``lateral.example.org`` a secure context, where the tablet's browser
lets the service worker register; over plain HTTP it would not, and the app would not
reload offline. The browser resolves the name to 127.0.0.1.
"""

from __future__ import annotations

import pytest

from tests.support.browser import CHROMIUM, LAUNCH_ARGS
from tests.support.databases import ENGINES, fresh_app
from tests.support.deploy_stack import SERVER_NAME, Gunicorn, Nginx, app_env, self_signed_certificate, spki_sha256
from tests.support.env import need_shared
from tests.support.field_app import (
    CHUNK,
    NETWORK_NOISE,
    SMALL_PHOTOS,
    City,
    answer_one_source,
    expect_pill,
    log_in_and_pull,
    seed_field_city,
    sha256_of,
    start_clear_water_survey,
    stored_counts,
)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    return self_signed_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def named_chromium(chromium, certificate):
    """Chromium that finds lateral.example.org on this machine, as a city's DNS would, and
    trusts this one self-signed certificate as a tablet trusts the city's (by its key).

    ``ignore_https_errors`` alone lets pages load but not the service worker script:
    Chromium refuses to register a worker fetched over a certificate it does not trust.
    """
    browser = chromium.browser_type.launch(executable_path=CHROMIUM, args=[
        *LAUNCH_ARGS, f"--host-resolver-rules=MAP {SERVER_NAME} 127.0.0.1",
        f"--ignore-certificate-errors-spki-list={spki_sha256(certificate[0])}"])
    yield browser
    browser.close()


@pytest.fixture(params=ENGINES)
def city_over_https(request, tmp_path, certificate):
    with fresh_app(request.param, tmp_path) as app:
        token, made = seed_field_city(app)
        with app.app_context():
            from server.core.extensions import db

            url = db.engine.url.render_as_string(hide_password=False)
        env = app_env(url, tmp_path, FIELD_TUS_CHUNK_BYTES=str(CHUNK))
        with (Gunicorn(env, tmp_path / "gunicorn.log") as app_host,
              Nginx(tmp_path / "nginx", [app_host.port], certificate) as nginx):
            yield City(app, nginx.url, token, made), nginx


def test_the_field_app_over_https_registers_its_worker_reloads_offline_and_syncs_a_photo(
        named_chromium, city_over_https):
    city, nginx = city_over_https
    context = named_chromium.new_context(viewport={"width": 1024, "height": 768}, service_workers="allow",
                                         ignore_https_errors=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and not NETWORK_NOISE.search(m.text) and errors.append(m.text))
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    photo = need_shared("realdata", "photos", SMALL_PHOTOS[0])
    digest = sha256_of(photo)
    try:
        log_in_and_pull(page, city)  # waits for the service worker to control the page
        assert page.evaluate("window.isSecureContext") is True
        assert page.url.startswith(f"https://{SERVER_NAME}:")

        context.set_offline(True)
        response = page.reload()
        assert response.from_service_worker, "the app shell did not come from the service worker"
        page.wait_for_selector(".parcel-card")
        expect_pill(page, "Offline")
        start_clear_water_survey(page, city.assignments[0]["parcel_id"])
        answer_one_source(page, [photo])
        page.click("#finish")
        expect_pill(page, "Offline · 1 waiting")

        context.set_offline(False)
        expect_pill(page, "All sent")
        page.click("a[data-tab='outbox']")
        page.wait_for_selector(".outbox-item[data-status='sent']")
        uuid = page.get_attribute(".outbox-item", "data-uuid")
        assert stored_counts(city, uuid, [digest]) == (1, [digest], 1)
        assert errors == []
    finally:
        context.close()
    # Everything went through nginx over HTTP/2 (the tablets' browsers speak it too).
    log = nginx.access_log()
    assert "PATCH /api/v1/uploads/" in log and "HTTP/2.0" in log
