"""The tablet field app sends a photo that fits in one chunk in one tus request.

The ``POST`` that creates the upload carries the photo (tus creation-with-upload).
The app names the upload (``upload_id``, kept in IndexedDB before the ``POST``), so a
``POST`` whose answer is lost is followed by a ``HEAD`` of that name, which finds the
photo complete: its bytes are not sent twice. A ``POST`` that never reached the server
is followed by a ``HEAD`` (404) and a new ``POST`` under the same name.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from tests.support.env import need_shared
from tests.support.field_app import (
    CHUNK,
    answer_one_source,
    expect_pill,
    log_in_and_pull,
    sha256_of,
    start_clear_water_survey,
    stored_counts,
)

# The live server on each engine and the tablet browser profile of the field app's tests.

PHOTO = "ep__nikon_D3100_TypeError.jpg"  # 22 kB: one chunk of CHUNK
UPLOADS = re.compile(r"/api/v1/uploads(/[0-9a-f]+)?$")
COLLECTION = re.compile(r"/api/v1/uploads$")


def tus_requests(page) -> list[tuple[str, str]]:
    """``(method, path)`` of every request the page sends to the uploads endpoint, as sent."""
    sent: list[tuple[str, str]] = []

    def seen(request) -> None:
        path = urlsplit(request.url).path
        if UPLOADS.search(path):
            sent.append((request.method, path))

    page.on("request", seen)
    return sent


def finish_survey_with(page, city, parcel_index: int, photo) -> str:
    """Fill in and finish a clear-water survey with one photo; the record's UUID."""
    start_clear_water_survey(page, city.assignments[parcel_index]["parcel_id"])
    answer_one_source(page, [photo])
    page.click("#finish")
    page.click("a[data-tab='outbox']")
    page.wait_for_selector(".outbox-item")
    return page.get_attribute(".outbox-item", "data-uuid")


def logged_in_with_photo(page, city):
    """Log in and pull; the photo, its digest, and the list the uploads requests land in."""
    photo = need_shared("realdata", "photos", PHOTO)
    log_in_and_pull(page, city)
    return photo, sha256_of(photo), tus_requests(page)


def wait_until_counted(page, counter: dict, key: str) -> None:
    """Give the route handler up to 10 s to count its first ``key``."""
    for _ in range(100):
        if counter[key]:
            return
        page.wait_for_timeout(100)


def back_online_until_sent(context, page) -> None:
    context.set_offline(False)
    expect_pill(page, "All sent")
    page.wait_for_selector(".outbox-item[data-status='sent']")


def test_a_photo_that_fits_in_one_chunk_is_one_tus_request(field_city, tablet):
    context, page, errors = tablet
    photo, digest, sent = logged_in_with_photo(page, field_city)
    size = photo.stat().st_size
    assert size <= CHUNK
    bodies: list[tuple[str | None, int]] = []

    def creation(route, request):
        bodies.append((request.headers.get("content-type"), len(request.post_data_buffer or b"")))
        route.continue_()

    page.route(COLLECTION, creation)  # a route sees the body, a request event not always

    uuid = finish_survey_with(page, field_city, 0, photo)
    expect_pill(page, "All sent")
    page.wait_for_selector(".outbox-item[data-status='sent']")

    assert sent == [("POST", "/api/v1/uploads")]  # no PATCH, no HEAD: one request
    assert bodies == [("application/offset+octet-stream", size)]  # the photo rode the POST
    assert stored_counts(field_city, uuid, [digest]) == (1, [digest], 1)
    assert errors == []


def test_a_creation_answer_lost_is_resumed_by_name_not_sent_again(field_city, tablet):
    context, page, errors = tablet
    photo, digest, sent = logged_in_with_photo(page, field_city)
    lost = {"answers": 0}
    bodies: list[int] = []

    def lose_first_answer(route, request):
        if request.method == "POST":
            bodies.append(len(request.post_data_buffer or b""))
        if request.method != "POST" or lost["answers"]:
            route.continue_()
            return
        route.fetch()  # the server gets the whole photo and stores it …
        lost["answers"] += 1
        context.set_offline(True)  # … and the tablet loses signal before the answer arrives
        route.abort("internetdisconnected")

    page.route(UPLOADS, lose_first_answer)
    uuid = finish_survey_with(page, field_city, 1, photo)
    wait_until_counted(page, lost, "answers")
    assert lost["answers"] == 1, "the upload never reached the server"
    expect_pill(page, "Offline · 1 waiting")
    page.wait_for_selector(".outbox-item[data-status='pushed']")  # not sent: no answer came
    assert stored_counts(field_city, uuid, [digest]) == (1, [digest], 1)  # yet the server holds it

    back_online_until_sent(context, page)
    # The app asked about the upload it had named and found it complete.
    assert [m for m, _ in sent] == ["POST", "HEAD"]
    named = sent[1][1]
    assert re.fullmatch(r"/api/v1/uploads/[0-9a-f]{32}", named)
    assert bodies == [photo.stat().st_size]  # the photo's bytes went once
    assert stored_counts(field_city, uuid, [digest]) == (1, [digest], 1)
    assert errors == []


def test_a_creation_that_never_arrived_is_created_again_under_its_name(field_city, tablet):
    context, page, errors = tablet
    photo, digest, sent = logged_in_with_photo(page, field_city)
    cut = {"posts": 0}

    def cut_first_post(route, request):
        if request.method != "POST" or cut["posts"]:
            route.continue_()
            return
        cut["posts"] += 1
        context.set_offline(True)  # the signal drops before the request leaves the tablet
        route.abort("internetdisconnected")

    page.route(UPLOADS, cut_first_post)
    uuid = finish_survey_with(page, field_city, 2, photo)
    wait_until_counted(page, cut, "posts")
    assert cut["posts"] == 1
    expect_pill(page, "Offline · 1 waiting")
    assert stored_counts(field_city, uuid, [digest])[2] == 0  # the server never saw the photo

    back_online_until_sent(context, page)
    methods = [m for m, _ in sent]
    assert methods[0] == "POST" and methods[-2:] == ["HEAD", "POST"], sent
    named = {path for method, path in sent if method == "HEAD"}
    assert len(named) == 1 and re.fullmatch(r"/api/v1/uploads/[0-9a-f]{32}", named.pop())
    assert stored_counts(field_city, uuid, [digest]) == (1, [digest], 1)
    # Chromium logs the HEAD's 404 itself; the app logged nothing.
    assert [e for e in errors if "status of 404" not in e] == []
