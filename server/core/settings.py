"""Configuration: one class, read from the environment at app creation.

Every setting a city might change is an environment variable with a safe default, so
`make run` works with none set. Tests pass overrides to ``create_app``.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def _instance_secret(instance_path: Path) -> str:
    """A stable secret key kept in ``instance/`` so sessions survive restarts."""
    path = instance_path / "secret_key"
    if not path.exists():
        instance_path.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def _blob_store_from_env(env) -> dict | None:
    """``BLOB_STORE=s3`` with ``BLOB_S3_BUCKET`` etc., ``local`` with ``BLOB_ROOT``, else None."""
    backend = env("BLOB_STORE")
    if backend == "s3":
        config = {"backend": "s3", "bucket": env("BLOB_S3_BUCKET"), "endpoint_url": env("BLOB_S3_ENDPOINT"),
                  "region": env("BLOB_S3_REGION"), "prefix": env("BLOB_S3_PREFIX", "")}
        return {k: v for k, v in config.items() if v is not None}
    if backend == "local" and env("BLOB_ROOT"):
        return {"backend": "local", "root": env("BLOB_ROOT")}
    return None


class Config:
    """Settings read from the environment; ``instance_path`` is the Flask instance folder."""

    def __init__(self, instance_path: str | Path):
        instance = Path(instance_path)
        env = os.environ.get
        self.SQLALCHEMY_DATABASE_URI = env("DATABASE_URL") or f"sqlite:///{instance / 'lateral.sqlite'}"
        # Unset, a random key is made once and kept in instance/secret_key (make run).
        self.SECRET_KEY = env("SECRET_KEY") or _instance_secret(instance)
        # JSON bodies of the feature API; photos travel over tus with their own limit.
        self.MAX_CONTENT_LENGTH = int(env("LATERAL_MAX_BODY_BYTES", 2 * 1024 * 1024))
        # The city (server/core/city.py): its rulebook, and the projected CRS its rules measure
        # in (unset: the rulebook's [measurement] crs).
        self.LATERAL_RULEBOOK = env("LATERAL_RULEBOOK", "arcadia")
        self.LATERAL_MEASUREMENT_CRS = env("LATERAL_MEASUREMENT_CRS") or None
        self.LATERAL_PAGE_DEFAULT = int(env("LATERAL_PAGE_DEFAULT", 100))
        self.LATERAL_PAGE_MAX = int(env("LATERAL_PAGE_MAX", 5000))
        # GIS clients walking /ogc: the next page is written while the client reads this
        # one (server/network/ogc/readahead.py), kept in LATERAL_OGC_READAHEAD_DIR (unset:
        # instance/cache/ogc-pages), a folder every worker of the server can read.
        self.LATERAL_OGC_READAHEAD = _flag(env("LATERAL_OGC_READAHEAD", "1"))
        self.LATERAL_OGC_READAHEAD_DIR = env("LATERAL_OGC_READAHEAD_DIR") or None
        # Smaller pages come back to the client before the next could be written ahead.
        self.LATERAL_OGC_READAHEAD_MIN_LIMIT = int(env("LATERAL_OGC_READAHEAD_MIN_LIMIT", 100))
        # Field sync and photo evidence (docs/sync.md, docs/photos.md). BLOB_STORE and
        # TUS_STAGING_DIR default to instance/blobs and instance/tus when unset.
        self.BLOB_STORE = _blob_store_from_env(env)
        self.TUS_STAGING_DIR = env("TUS_STAGING_DIR") or None
        self.TUS_EXPIRES_AFTER = int(env("TUS_EXPIRES_AFTER", 24 * 3600))
        self.PHOTO_MAX_BYTES = int(env("PHOTO_MAX_BYTES", 50 * 1024 * 1024))
        # 50 MP: more than a tablet or phone camera makes (12-48 MP); the display image
        # of a photo at the limit stays within a worker's memory (bench_photo_memory.py).
        self.PHOTO_MAX_PIXELS = int(env("PHOTO_MAX_PIXELS", 50_000_000))
        # Address space (MiB) of the child process that decodes a big HEIF/PNG/TIFF/WebP
        # (server/field/photos/isolated.py): the worker's own memory does not follow the photo.
        self.PHOTO_DECODE_MEMORY_MIB = int(env("PHOTO_DECODE_MEMORY_MIB", 1536))
        self.SYNC_PUSH_MAX_RECORDS = int(env("SYNC_PUSH_MAX_RECORDS", 100))
        self.SYNC_AREA_MARGIN_M = float(env("SYNC_AREA_MARGIN_M", 150))
        # The field app's map background: a tile URL template ({z}/{x}/{y}); unset, the
        # map draws the network on a plain ground (no signal in a basement anyway).
        self.LATERAL_BASEMAP_URL = env("LATERAL_BASEMAP_URL") or None
        self.LATERAL_BASEMAP_ATTRIBUTION = env("LATERAL_BASEMAP_ATTRIBUTION", "")
        # Photo upload chunk: what a cut connection costs at most to send again.
        self.FIELD_TUS_CHUNK_BYTES = int(env("FIELD_TUS_CHUNK_BYTES", 1024 * 1024))
        # Behind nginx (docs/deploy.md): trust one proxy's X-Forwarded-For/-Proto/-Host/-Port,
        # so links are https:// and the client's address is the tablet's, not nginx's.
        # Off by default: a server reached directly must not believe those headers.
        self.LATERAL_BEHIND_PROXY = env("LATERAL_BEHIND_PROXY", "0").lower() in ("1", "true", "yes", "on")
        # `flask --app server doctor`: the least free disk space, and how old the last
        # tick or backup may be, before each is reported as a problem.
        self.LATERAL_DOCTOR_MIN_FREE_MB = int(env("LATERAL_DOCTOR_MIN_FREE_MB", 2048))
        self.LATERAL_DOCTOR_JOB_MAX_AGE_HOURS = float(env("LATERAL_DOCTOR_JOB_MAX_AGE_HOURS", 48))
        self.SESSION_COOKIE_HTTPONLY = True
        self.SESSION_COOKIE_SAMESITE = "Lax"
        # Served over HTTPS (docs/deploy.md): the cookie travels over HTTPS only.
        self.SESSION_COOKIE_SECURE = _flag(env("SESSION_COOKIE_SECURE", "0"))
        # Login throttling (server/core/web/throttle.py): failed password checks allowed per
        # username and per client address; Flask-Limiter's storage, memory or Redis.
        self.RATELIMIT_STORAGE_URI = env("RATELIMIT_STORAGE_URI", "memory://")
        self.RATELIMIT_STRATEGY = "moving-window"
        self.LOGIN_FAILURES_PER_USERNAME = env("LOGIN_FAILURES_PER_USERNAME", "10 per 15 minutes")
        self.LOGIN_FAILURES_PER_ADDRESS = env("LOGIN_FAILURES_PER_ADDRESS", "50 per 15 minutes")
        # HTTP Basic (GIS clients): a checked credential is remembered this long
        # (server/core/web/basic_cache.py); memory:// per process or redis://… shared.
        self.BASIC_AUTH_CACHE_SECONDS = int(env("BASIC_AUTH_CACHE_SECONDS", 300))
        self.BASIC_AUTH_CACHE_URI = env("BASIC_AUTH_CACHE_URI", "memory://")
        # A device token unused this many days is refused like a revoked one.
        self.TOKEN_IDLE_DAYS = int(env("TOKEN_IDLE_DAYS", 90))
        # Responses (server/core/web/compression.py). A 746 KB page of 1,000 parcels: gzip
        # level 1 writes 86 KB in 1.7 ms of CPU, level 5 70 KB in 3.4 ms (bench/README.md,
        # "Compression levels"). Level 1, nginx's own default: half the CPU for 16 KB more,
        # which a city's network carries in about a millisecond; GDAL and QGIS ask for gzip.
        # Brotli (browsers) at quality 4: 65 KB in 2.2 ms. Smaller bodies go as they are.
        self.COMPRESS_MIN_SIZE = int(env("LATERAL_COMPRESS_MIN_BYTES", 1024))
        self.COMPRESS_LEVEL = int(env("LATERAL_GZIP_LEVEL", 1))
        self.COMPRESS_BR_LEVEL = int(env("LATERAL_BROTLI_QUALITY", 4))
        self.SQLALCHEMY_TRACK_MODIFICATIONS = False
        # OpenAPI (flask-smorest)
        self.API_TITLE = "Lateral"
        self.API_VERSION = "v1"
        self.OPENAPI_VERSION = "3.0.3"
        self.OPENAPI_URL_PREFIX = "/api/v1"
        self.OPENAPI_JSON_PATH = "openapi.json"

    def update(self, overrides: dict | None) -> Config:
        for key, value in (overrides or {}).items():
            setattr(self, key, value)
        return self


# Keys from examples and tutorials; a server signing its cookies with one of these lets
# anyone forge a session. Tests use "test" with TESTING on.
WEAK_SECRET_KEYS = frozenset({"", "dev", "test", "secret", "changeme", "change-me", "development",
                              "secret-key", "secret_key", "your-secret-key", "lateral"})
MIN_SECRET_KEY_LENGTH = 16


def check_secret_key(config) -> None:
    """Refuse to start outside debug and testing with a default or short ``SECRET_KEY``.

    Raises:
        RuntimeError: naming the setting and how to fix it.
    """
    if config.get("DEBUG") or config.get("TESTING"):
        return
    key = str(config.get("SECRET_KEY") or "")
    if key.lower() in WEAK_SECRET_KEYS or len(key) < MIN_SECRET_KEY_LENGTH:
        raise RuntimeError(
            "SECRET_KEY is a default or shorter than 16 characters: set it to a long random value "
            "(python -c 'import secrets; print(secrets.token_hex(32))'), or leave it unset to have "
            "one made and kept in instance/secret_key"
        )
