"""The HTTP floor of an OAPIF copy: Lateral's own pages, saved once, served by nginx as files.

A GIS client copying a layer through OGC API – Features pays for every request itself:
the HTTP exchange, parsing the page's GeoJSON, writing the features. No server can make
those cheaper. To see that cost apart from Lateral's, :func:`mirror` walks Lateral's
``next`` links once at a given page size and saves every page as a file, with the links
rewritten to point at the copy (the ``next`` of page *i* is ``…/p/<i+1>``); the landing
page, the API definition and the collections document are saved beside them.
:func:`nginx` then serves the files (no compression, no work per request but ``sendfile``).
A copy from there is what the client costs at that page size with a server that costs
nothing: the floor under any OAPIF server, Lateral's included.

The first page is served for ``/collections/<layer>/items`` whatever its query string
(GDAL adds ``limit``, and 3.9+ ``crs``); a client that asks for a different page size than
the mirror was made with gets the mirror's pages.
"""

from __future__ import annotations

import http.client
import json
import os
import pwd
import shutil
import subprocess
import tempfile
import urllib.parse
from contextlib import contextmanager
from pathlib import Path

from bench.common import free_port, wait_for_port

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def _get(conn: http.client.HTTPConnection, path: str, headers: dict) -> bytes:
    conn.request("GET", path, headers=headers)
    resp = conn.getresponse()
    body = resp.read()
    if resp.status != 200:
        raise SystemExit(f"{path}: HTTP {resp.status} {body[:300]!r}")
    return body


def mirror(base: str, headers: dict, layer: str, page_size: int, out: Path, static_base: str) -> int:
    """Save ``layer``'s pages of ``page_size`` from Lateral at ``base`` into ``out``; the page count."""
    parsed = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=300)
    (out / "p").mkdir(parents=True, exist_ok=True)
    accept = {**headers, "Accept": "application/json"}
    for path, name in (("/ogc/", "landing.json"), ("/ogc/api", "api.json"), ("/ogc/conformance", "conformance.json"),
                       ("/ogc/collections", "collections.json")):
        (out / name).write_bytes(_get(conn, path, accept).replace(base.encode(), static_base.encode()))
    path, n = f"/ogc/collections/{layer}/items?limit={page_size}", 0
    while path:
        page = json.loads(_get(conn, path, {**headers, "Accept": "application/geo+json"}))
        nxt = [link for link in page["links"] if link["rel"] == "next"]
        path = None
        for link in page["links"]:
            link["href"] = link["href"].replace(base, static_base)
        if nxt:
            path = urllib.parse.urlsplit(nxt[0]["href"].replace(static_base, base))
            path = f"{path.path}?{path.query}"
            nxt[0]["href"] = f"{static_base}/ogc/collections/{layer}/p/{n + 1}"
        (out / "p" / f"{n}.json").write_text(json.dumps(page, separators=(",", ":")))
        n += 1
    conn.close()
    return n


_CONF = """
{user}
worker_processes 2;
error_log {dir}/error.log warn;
pid {dir}/nginx.pid;
events {{ worker_connections 64; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    client_body_temp_path {dir}/tmp;
    proxy_temp_path {dir}/tmp;
    fastcgi_temp_path {dir}/tmp;
    uwsgi_temp_path {dir}/tmp;
    scgi_temp_path {dir}/tmp;
    types {{ }}
    server {{
        listen 127.0.0.1:{port};
        root {root};
        location = /ogc {{ default_type application/json; try_files /landing.json =404; }}
        location = /ogc/ {{ default_type application/json; try_files /landing.json =404; }}
        location = /ogc/api {{ default_type "application/vnd.oai.openapi+json;version=3.0";
                              try_files /api.json =404; }}
        location = /ogc/conformance {{ default_type application/json; try_files /conformance.json =404; }}
        location = /ogc/collections {{ default_type application/json; try_files /collections.json =404; }}
        location = /ogc/collections/{layer}/items {{ default_type application/geo+json; try_files /p/0.json =404; }}
        location ~ ^/ogc/collections/{layer}/p/(\\d+)$ {{ default_type application/geo+json;
                                                           try_files /p/$1.json =404; }}
    }}
}}
"""


@contextmanager
def nginx(root: Path, layer: str, port: int):
    """nginx serving a mirror made by :func:`mirror` on 127.0.0.1:``port``; yields the base URL."""
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(f"{work}/tmp")
        conf = Path(work) / "nginx.conf"
        # Started as root, nginx's workers would be "nobody", who cannot read a temporary directory.
        user = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
        conf.write_text(_CONF.format(user=user, dir=work, port=port, root=root, layer=layer))
        proc = subprocess.Popen([NGINX, "-p", work, "-c", str(conf), "-g", "daemon off;"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_for_port(port, 20)
            if proc.poll() is not None:
                raise SystemExit(f"nginx did not start: {proc.stderr.read().decode()[-1000:]}")
            yield f"http://127.0.0.1:{port}"
        finally:
            proc.terminate()
            proc.wait(timeout=30)


@contextmanager
def mirrored(base: str, headers: dict, layer: str, page_size: int, work: Path):
    """Mirror Lateral's pages of ``page_size`` and serve them; yields (static base URL, pages)."""
    port = free_port()
    static_base = f"http://127.0.0.1:{port}"
    root = work / f"mirror-{page_size}"
    pages = mirror(base, headers, layer, page_size, root, static_base)
    with nginx(root, layer, port) as url:
        yield url, pages
