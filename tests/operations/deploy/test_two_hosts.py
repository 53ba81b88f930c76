"""Two app hosts behind nginx round-robin, one PostGIS, one S3 (moto_server), and one
shared tus staging directory (a local folder standing in for the NFS mount that
docs/deploy.md names): an upload cut on one host resumes on the other, a record pushed
twice is stored once, and a revoked token is refused by both hosts."""

from __future__ import annotations

import hashlib
import re
import shutil
import socket
import ssl
import subprocess
import time
import uuid

import pytest
import requests
from tusclient import client as tus_client

from tests.support.databases import PASSWORD, fresh_app
from tests.support.deploy_stack import Gunicorn, Nginx, app_env, free_port
from tests.support.env import need_shared, unavailable
from tests.support.storage import s3_config

PHOTO = "es__jpg_hdr_canon_hdr_YES.jpg"  # 700 kB: eleven chunks
CHUNK = 64 * 1024


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """A Redis of the test's own on a free port, for the counters both hosts share."""
    binary = shutil.which("redis-server")
    if not binary:
        unavailable("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    process = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", str(tmp_path_factory.mktemp("redis"))],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.1)
    yield f"redis://127.0.0.1:{port}/0"
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def two_hosts(tmp_path_factory, moto_endpoint, redis_url):
    from server.core.accounts.service import create_user
    from server.core.extensions import db
    from server.field.checklist_templates import load_templates

    tmp = tmp_path_factory.mktemp("two-hosts")
    store = s3_config(moto_endpoint)
    with fresh_app("postgis", tmp, BLOB_STORE=store) as app:
        with app.app_context():
            create_user("tablet9", "inspector", PASSWORD)
            create_user("tablet10", "inspector", PASSWORD)
            load_templates()
            db.session.commit()
            url = db.engine.url.render_as_string(hide_password=False)
        env = app_env(url, tmp, BLOB_STORE="s3", BLOB_S3_BUCKET=store["bucket"], BLOB_S3_ENDPOINT=moto_endpoint,
                      BLOB_S3_REGION="us-east-1", AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                      TUS_STAGING_DIR=str(tmp / "shared-tus"),
                      # Login throttling and the Basic-auth cache count in one Redis for both hosts.
                      LOGIN_COUNTERS=redis_url, BASIC_AUTH_CACHE_URI=redis_url,
                      LOGIN_FAILURES_PER_USERNAME="3 per 15 minutes")
        with Gunicorn(env, tmp / "host-a.log") as a, Gunicorn(env, tmp / "host-b.log") as b, \
                Nginx(tmp / "nginx", [a.port, b.port]) as nginx:
            yield app, nginx, (a, b), f"https://127.0.0.1:{nginx.https_port}"


def session() -> requests.Session:
    s = requests.Session()
    s.verify = False  # the test's self-signed certificate; TLS itself is tested in test_nginx.py
    s.trust_env = False  # else a CA bundle named in the environment would override verify
    return s


def log_in(base: str, device: str) -> tuple[dict, int]:
    response = session().post(f"{base}/api/v1/auth/token", json={"username": "tablet9", "password": PASSWORD,
                                                                 "device_name": device})
    assert response.status_code == 201, response.text
    body = response.json()
    return {"Authorization": f"Bearer {body['token']}"}, body["token_id"]


def requests_for(host: Gunicorn, needle: str) -> list[str]:
    return [line for line in host.log.read_text().splitlines() if needle in line]


def served_by_both(hosts, needle: str, total: int) -> list[int]:
    """How many of the requests matching ``needle`` each host logged, once all ``total`` are logged.

    gunicorn writes an access-log line after the response has gone out, so the client can
    be a moment ahead of the log.
    """
    counts = []
    for _ in range(100):
        counts = [len(requests_for(host, needle)) for host in hosts]
        if sum(counts) >= total:
            break
        time.sleep(0.05)
    return counts


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
def test_an_upload_cut_on_one_host_resumes_on_the_other_and_the_photo_is_stored_once(two_hosts):
    from server.core.extensions import db
    from server.field.models import Photo

    app, nginx, hosts, base = two_hosts
    headers, _ = log_in(base, "tablet 9")
    photo = need_shared("realdata", "photos", PHOTO)
    data = photo.read_bytes()
    assert len(data) > 6 * CHUNK
    digest = hashlib.sha256(data).hexdigest()

    client = tus_client.TusClient(f"{base}/api/v1/uploads", headers=headers)
    first = client.uploader(str(photo), chunk_size=CHUNK, metadata={"filename": PHOTO}, verify_tls_cert=False)
    first.upload(stop_at=2 * CHUNK)  # the creation and two PATCHes, spread over both hosts
    assert first.offset == 2 * CHUNK
    location = first.url
    upload_id = location.rsplit("/", 1)[1]

    # The tablet loses signal in the middle of its next PATCH.
    path = location.split(str(nginx.https_port), 1)[1]
    half = CHUNK // 2
    head = (f"PATCH {path} HTTP/1.1\r\nHost: 127.0.0.1:{nginx.https_port}\r\n"
            f"Authorization: {headers['Authorization']}\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: {2 * CHUNK}\r\n"
            f"Content-Type: application/offset+octet-stream\r\nContent-Length: {CHUNK}\r\n\r\n").encode()
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", nginx.https_port)) as raw, \
            context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
        tls.sendall(head + data[2 * CHUNK:2 * CHUNK + half])

    # Later, a new uploader (the app was reloaded) asks where to go on and finishes.
    resumed = tus_client.TusClient(f"{base}/api/v1/uploads", headers=headers).uploader(
        str(photo), chunk_size=CHUNK, url=location, verify_tls_cert=False)
    assert 2 * CHUNK <= resumed.offset <= 2 * CHUNK + half
    resumed.upload()

    patches = [requests_for(host, f"PATCH /api/v1/uploads/{upload_id}") for host in hosts]
    assert all(patches), "every host took some of the upload's PATCHes"
    with app.app_context():
        rows = db.session.scalars(db.select(Photo).where(Photo.sha256 == digest)).all()
        assert len(rows) == 1 and rows[0].size == len(data)
        from server.field.api.photos import BLOBS

        with app.extensions[BLOBS].open(digest) as stored:
            assert hashlib.sha256(stored.read()).hexdigest() == digest
        db.session.remove()


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
def test_a_record_pushed_to_both_hosts_is_stored_once_and_read_back_from_either(two_hosts):
    from server.core.extensions import db
    from server.field.models import Inspection
    from server.network.models import Parcel
    from tests.support.sync import survey

    app, _, hosts, base = two_hosts
    headers, _ = log_in(base, "tablet 9b")
    with app.app_context():
        from geoalchemy2.shape import from_shape
        from shapely.geometry import MultiPolygon, box

        parcel = Parcel(parcel_number="206-00777-0000", site_address="7 W Main St",
                        geom=from_shape(MultiPolygon([box(-91.50, 44.25, -91.4997, 44.2502)]), srid=4326))
        db.session.add(parcel)
        db.session.commit()
        parcel_id = parcel.id
        db.session.remove()
    record = {"uuid": str(uuid.uuid4()), "kind": "inspection", "data": survey(parcel_id)}
    s = session()
    statuses = [s.post(f"{base}/api/v1/sync/push", json={"records": [record]}, headers=headers).json()["results"][0]
                for _ in range(2)]
    assert [r["status"] for r in statuses] == [201, 200], statuses  # stored, then recognised: same on any host
    assert served_by_both(hosts, "POST /api/v1/sync/push", 2) == [1, 1], "one push went to each host"
    for _ in range(2):
        assert s.get(f"{base}/api/v1/inspections/{record['uuid']}", headers=headers).status_code == 200
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Inspection)
                                 .where(Inspection.uuid == record["uuid"])) == 1
        db.session.remove()


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
def test_a_revoked_token_is_refused_by_every_host(two_hosts):
    _, _, hosts, base = two_hosts
    headers, token_id = log_in(base, "tablet 9c")
    s = session()
    assert [s.get(f"{base}/api/v1/auth/me", headers=headers).status_code for _ in range(2)] == [200, 200]
    assert s.delete(f"{base}/api/v1/auth/tokens/{token_id}", headers=headers).status_code == 204
    assert [s.get(f"{base}/api/v1/auth/me", headers=headers).status_code for _ in range(4)] == [401] * 4
    served = served_by_both(hosts, "GET /api/v1/auth/me", 6)
    assert served == [3, 3], served
    assert re.search(r"DELETE /api/v1/auth/tokens/\d+", "".join(h.log.read_text() for h in hosts))


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
def test_failed_logins_on_both_hosts_are_counted_together(two_hosts):
    """Three wrong passwords, spread over the hosts, and the fourth try is refused by
    whichever host takes it, the right password included: as on one host."""
    _, _, hosts, base = two_hosts
    s = session()
    before = served_by_both(hosts, "POST /api/v1/auth/token", 0)

    def try_password(password: str) -> int:
        return s.post(f"{base}/api/v1/auth/token", json={"username": "tablet10", "password": password,
                                                         "device_name": "guess"}).status_code

    assert [try_password("wrong horse") for _ in range(3)] == [401, 401, 401]
    assert [try_password(PASSWORD) for _ in range(2)] == [429, 429]
    after = served_by_both(hosts, "POST /api/v1/auth/token", sum(before) + 5)
    assert all(a > b for a, b in zip(after, before, strict=True)), (before, after)  # both hosts counted


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
def test_logging_out_of_the_desk_through_one_host_ends_the_session_on_both(two_hosts):
    _, _, hosts, base = two_hosts
    s = session()
    assert s.post(f"{base}/login", data={"username": "tablet9", "password": PASSWORD},
                  allow_redirects=False).status_code == 302
    cookie = "; ".join(f"{c.name}={c.value}" for c in s.cookies)  # what someone could copy
    assert [s.get(f"{base}/api/v1/auth/me").status_code for _ in range(2)] == [200, 200]  # both hosts
    token = re.search(r'name="csrf-token" content="([^"]+)"', s.get(f"{base}/").text).group(1)
    assert s.post(f"{base}/logout", data={"csrf_token": token}, allow_redirects=False).status_code == 302
    copied = session()
    assert [copied.get(f"{base}/api/v1/auth/me", headers={"Cookie": cookie}).status_code
            for _ in range(2)] == [401, 401]
