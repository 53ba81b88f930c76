"""deploy/nginx/lateral.conf in front of gunicorn: TLS with HTTP/2, HSTS, the redirect,
the app's body limits, https:// links from X-Forwarded-*, and photo bodies streamed."""

from __future__ import annotations

import http.client
import socket
import ssl
import time
import warnings

import pytest

from tests.support.databases import ENGINES, PASSWORD, fresh_app
from tests.support.deploy_stack import SERVER_NAME, Gunicorn, Nginx, app_env


@pytest.fixture(scope="module", params=ENGINES)
def stack(request, tmp_path_factory):
    """One engine's database, a gunicorn and nginx in front: (nginx, bearer token)."""
    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db

    tmp = tmp_path_factory.mktemp(f"nginx-{request.param}")
    with fresh_app(request.param, tmp) as app:
        with app.app_context():
            token = issue_token(create_user("tablet7", "inspector", PASSWORD), "nginx test")[0]
            db.session.commit()
            url = db.engine.url.render_as_string(hide_password=False)
        with Gunicorn(app_env(url, tmp), tmp / "gunicorn.log") as app_host, Nginx(tmp, [app_host.port]) as nginx:
            yield nginx, token


def tls_context(nginx: Nginx) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(nginx.cert))
    context.check_hostname = False  # we dial 127.0.0.1; the certificate names lateral.example.org
    return context


def https(nginx: Nginx, method: str, path: str, body: bytes | None = None, **headers) -> http.client.HTTPResponse:
    conn = http.client.HTTPSConnection("127.0.0.1", nginx.https_port, context=tls_context(nginx), timeout=30)
    conn.request(method, path, body=body, headers={"Host": f"{SERVER_NAME}:{nginx.https_port}", **headers})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def create_upload(nginx: Nginx, token: str, length: int) -> str:
    response = https(nginx, "POST", "/api/v1/uploads", Authorization=f"Bearer {token}",
                     **{"Tus-Resumable": "1.0.0", "Upload-Length": str(length)})
    assert response.status == 201, response.status
    return response.headers["Location"]


def test_tls_offers_http2_and_modern_protocols_only(stack):
    nginx, _ = stack
    context = tls_context(nginx)
    context.set_alpn_protocols(["h2", "http/1.1"])
    with socket.create_connection(("127.0.0.1", nginx.https_port)) as raw, \
            context.wrap_socket(raw, server_hostname=SERVER_NAME) as tls:
        assert tls.selected_alpn_protocol() == "h2"
        assert tls.version() in ("TLSv1.2", "TLSv1.3")
    old = tls_context(nginx)
    with warnings.catch_warnings():  # the point: TLS 1.1 is deprecated, and nginx refuses it
        warnings.simplefilter("ignore", DeprecationWarning)
        old.minimum_version = old.maximum_version = ssl.TLSVersion.TLSv1_1
    with socket.create_connection(("127.0.0.1", nginx.https_port)) as raw, pytest.raises(ssl.SSLError):
        old.wrap_socket(raw, server_hostname=SERVER_NAME)


def test_plain_http_is_sent_to_https_and_https_answers_with_hsts(stack):
    nginx, _ = stack
    conn = http.client.HTTPConnection("127.0.0.1", nginx.http_port, timeout=10)
    conn.request("GET", "/field/?x=1", headers={"Host": SERVER_NAME})
    response = conn.getresponse()
    assert response.status == 301
    assert response.headers["Location"] == f"https://{SERVER_NAME}/field/?x=1"
    response = https(nginx, "GET", "/api/v1/health")
    assert response.status == 200
    assert response.headers["Strict-Transport-Security"] == "max-age=63072000"


def test_the_app_builds_https_links_from_the_forwarded_headers(stack):
    nginx, token = stack
    location = create_upload(nginx, token, 10)
    assert location.startswith(f"https://{SERVER_NAME}:{nginx.https_port}/api/v1/uploads/")


def test_json_bodies_are_limited_as_the_app_limits_them_and_photos_are_not(stack):
    nginx, token = stack
    auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    too_big = b"[" + b" " * (3 * 1024 * 1024) + b"]"
    refused = https(nginx, "POST", "/api/v1/sync/push", too_big, **auth)
    assert refused.status == 413
    assert "nginx" in refused.headers.get("Server", "")  # refused at the door, not by a worker
    photo = 5 * 1024 * 1024
    path = create_upload(nginx, token, photo).split(str(nginx.https_port), 1)[1]
    response = https(nginx, "PATCH", path, b"\xff" * photo, Authorization=f"Bearer {token}",
                     **{"Tus-Resumable": "1.0.0", "Upload-Offset": "0",
                        "Content-Type": "application/offset+octet-stream"})
    # Past nginx to the app, which judges 5 MiB of 0xff no photo (or takes it): never 413.
    assert response.status != 413 and response.status < 500, response.status


def test_a_photo_patch_cut_half_way_leaves_the_app_the_bytes_that_arrived(stack):
    """proxy_request_buffering off: nginx passes the body on as it comes. Buffered, a cut
    body would never reach the app and the tablet would start the photo again."""
    nginx, token = stack
    length = 4 * 1024 * 1024
    location = create_upload(nginx, token, length)
    path = location.split(str(nginx.https_port), 1)[1]
    head = (f"PATCH {path} HTTP/1.1\r\nHost: {SERVER_NAME}:{nginx.https_port}\r\n"
            f"Authorization: Bearer {token}\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\n"
            f"Content-Type: application/offset+octet-stream\r\nContent-Length: {length}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", nginx.https_port)) as raw, \
            tls_context(nginx).wrap_socket(raw, server_hostname=SERVER_NAME) as tls:
        tls.sendall(head + b"\x00" * (length // 2))
        time.sleep(0.5)  # not a measurement: gives nginx a moment to pass the bytes on before the cut
    held = 0
    for _ in range(100):
        response = https(nginx, "HEAD", path, Authorization=f"Bearer {token}", **{"Tus-Resumable": "1.0.0"})
        held = int(response.headers["Upload-Offset"])
        if held:
            break
        time.sleep(0.1)
    assert 0 < held <= length // 2


def test_nginx_names_no_version_and_refuses_unknown_hosts(stack):
    nginx, _ = stack
    assert https(nginx, "GET", "/api/v1/health").headers["Server"] == "nginx"
    conn = http.client.HTTPConnection("127.0.0.1", nginx.http_port, timeout=10)
    conn.request("GET", "/", headers={"Host": "scanner.invalid"})
    with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
        conn.getresponse()  # 444: the connection closed without an answer
    with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
        https(nginx, "GET", "/", Host="scanner.invalid")
