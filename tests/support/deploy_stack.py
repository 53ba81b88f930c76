"""The deployment stack for tests: a self-signed certificate, gunicorn processes, and
Debian's nginx running ``deploy/nginx/lateral.conf`` on loopback ports.

The site file is used as shipped, with only its ports, certificate paths and upstream
hosts replaced; each replacement must find its text, so a change to the file that the
test no longer matches fails here instead of testing something else.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.support.env import REPO_ROOT, unavailable

SITE_CONF = REPO_ROOT / "deploy" / "nginx" / "lateral.conf"
SERVER_NAME = "lateral.example.org"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def self_signed_certificate(folder: Path, name: str = SERVER_NAME) -> tuple[Path, Path]:
    """A certificate for ``name`` signed by its own key: (certificate, key) PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def spki_sha256(cert_path: Path) -> str:
    """Base64 SHA-256 of the certificate's public key, as Chromium's SPKI allow-list wants it."""
    import base64
    import hashlib

    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    spki = cert.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()


def app_env(db_url: str, tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment a city's gunicorn runs with (docs/deploy.md), on the test's database."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "BLOB_", "TUS_"))}
    env.update({"DATABASE_URL": db_url, "SECRET_KEY": "t" * 48, "LATERAL_BEHIND_PROXY": "1",
                "SESSION_COOKIE_SECURE": "1", "BLOB_STORE": "local", "BLOB_ROOT": str(tmp_path / "blobs"),
                "TUS_STAGING_DIR": str(tmp_path / "tus"), "PYTHONPATH": str(REPO_ROOT),
                # The access log is read by tests while gunicorn runs: no buffering.
                "PYTHONUNBUFFERED": "1"})
    env.update(extra)
    return env


class Gunicorn:
    """``gunicorn 'server:create_app()'`` as deploy/systemd/lateral.service runs it, on a free port."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.env, self.log = env, log
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Gunicorn:
        self._out = self.log.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{self.port}", "--workers", "1",
             "--threads", "4", "--graceful-timeout", "5", "--access-logfile", "-",
             "server:create_app()"],
            cwd=REPO_ROOT, env=self.env, stdout=self._out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/v1/health", timeout=2):
                    return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not answer: {self.log.read_text()[-2000:]}")

    def __exit__(self, *exc) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._out.close()


def site_conf(https_port: int, http_port: int, upstreams: list[int], cert: Path, key: Path) -> str:
    """deploy/nginx/lateral.conf on loopback ports, with the test's certificate and app hosts."""
    text = SITE_CONF.read_text()
    servers = "\n".join(f"    server 127.0.0.1:{port};" for port in upstreams)
    for old, new in [
        ("    server 127.0.0.1:8000;", servers),
        ("    listen 443 ssl http2;", f"    listen 127.0.0.1:{https_port} ssl http2;"),
        ("    listen [::]:443 ssl http2;\n", ""),
        ("    listen 80;", f"    listen 127.0.0.1:{http_port};"),
        ("    listen [::]:80;\n", ""),
        ("    listen 443 ssl http2 default_server;", f"    listen 127.0.0.1:{https_port} ssl http2 default_server;"),
        ("    listen [::]:443 ssl http2 default_server;\n", ""),
        ("    listen 80 default_server;", f"    listen 127.0.0.1:{http_port} default_server;"),
        ("    listen [::]:80 default_server;\n", ""),
        (f"/etc/letsencrypt/live/{SERVER_NAME}/fullchain.pem", str(cert)),
        (f"/etc/letsencrypt/live/{SERVER_NAME}/privkey.pem", str(key)),
        ("root /var/www/letsencrypt;", f"root {cert.parent};"),
        # Tests reach the site by its loopback address too (the default server refuses
        # any other name, tests/operations/deploy/test_nginx.py).
        (f"    server_name {SERVER_NAME};", f"    server_name {SERVER_NAME} 127.0.0.1;"),
    ]:
        assert old in text, f"{SITE_CONF} no longer has {old!r}"
        text = text.replace(old, new)
    return text


class Nginx:
    """Debian's nginx in the foreground with the site file, its own pid, logs and temp files."""

    def __init__(self, folder: Path, upstreams: list[int], certificate: tuple[Path, Path] | None = None) -> None:
        self.binary = shutil.which("nginx") or "/usr/sbin/nginx"
        if not Path(self.binary).exists():
            unavailable("Debian's nginx is not installed (apt-get install nginx)")
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.https_port, self.http_port = free_port(), free_port()
        self.url = f"https://{SERVER_NAME}:{self.https_port}"
        cert, key = certificate or self_signed_certificate(folder)
        self.cert = cert
        (folder / "site.conf").write_text(site_conf(self.https_port, self.http_port, upstreams, cert, key))
        temp = "\n".join(f"    {kind}_temp_path {folder / kind};" for kind in
                         ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        # As root, nginx would hand its workers to "nobody", who cannot read pytest's folders.
        user = "user root;\n" if os.geteuid() == 0 else ""
        (folder / "nginx.conf").write_text(
            f"{user}worker_processes 1;\npid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'} info;\n"
            f"events {{ worker_connections 256; }}\n"
            f"http {{\n    include /etc/nginx/mime.types;\n    access_log {folder / 'access.log'};\n{temp}\n"
            f"    include {folder / 'site.conf'};\n}}\n")
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Nginx:
        conf = str(self.folder / "nginx.conf")
        check = subprocess.run([self.binary, "-t", "-c", conf, "-p", str(self.folder)],
                               capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        self.process = subprocess.Popen([self.binary, "-c", conf, "-p", str(self.folder), "-g", "daemon off;"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.process.stderr.read().decode()}")
            try:
                socket.create_connection(("127.0.0.1", self.https_port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("nginx did not listen")

    def __exit__(self, *exc) -> None:
        self.process.send_signal(signal.SIGQUIT)  # graceful: finish what is in flight
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def access_log(self) -> str:
        return (self.folder / "access.log").read_text()
