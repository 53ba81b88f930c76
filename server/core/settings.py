"""Settings: one typed, frozen object, read from the environment once, in the app factory.

Every setting a city might change is an environment variable with a safe default, so
``make run`` works with none set; an empty variable is the same as an unset one. Each
field of :class:`Settings` says its type, its default, the variable it comes from and
what it means (docs/deploy.md lists the same; tests/core/test_settings.py compares them).

:func:`load` reads and checks every variable before the app is built, and refuses to
start with one :class:`~server.core.setting_types.SettingsError` naming every bad one:
a city's IT fixes them in one round, not one restart each. ``flask --app server doctor``
runs the same checks (:func:`problems`) as a production server must pass them.

``app.config`` is still filled from the object (:meth:`Settings.as_config`), for Flask
and its extensions (``SQLALCHEMY_DATABASE_URI``, ``SECRET_KEY``, …) and
the code that reads it; the object itself is ``settings.current()``. Tests pass overrides
to ``create_app`` by their ``app.config`` key.
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields, replace
from functools import cache
from pathlib import Path
from typing import Any, get_type_hints

from flask import Flask, current_app
from limits.storage import SCHEMES as RATE_LIMIT_SCHEMES
from pyproj.exceptions import CRSError

from gis.crs import MeasurementCRSError, Measurer
from gis.rulebook import RulebookError, load_rulebook
from server.core.setting_types import (
    Problem,
    SettingsError,
    at_least,
    between,
    existing_file,
    folder,
    one_of,
    parse,
    rate_limit,
    setting,
    spec_of,
    url,
)

EXTENSION = "lateral_settings"
MiB = 1024 * 1024
#: The rulebook of a server whose city sets none: the one Lateral was written for.
DEFAULT_RULEBOOK = "arcadia"

_DATABASE = url("sqlite", "sqlite+pysqlite", "postgresql+psycopg",
                hint=" (sqlite:///path/lateral.sqlite, or postgresql+psycopg://… for PostGIS)")
_RATE_STORE = url(*sorted(s for s in RATE_LIMIT_SCHEMES if not s.startswith("async+")))
_CACHE_STORE = url("memory", "redis", "rediss", "unix")


def parse_networks(text: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """``"127.0.0.1, 10.0.0.0/8"`` as networks (an address is a network of one)."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


def _networks(v: str | None) -> str | None:
    try:
        parse_networks(v or "")
    except ValueError as exc:
        return f"is not a list of addresses or networks: {exc}"
    return None


def _appendable(v: Path | None) -> str | None:
    return "is a folder, not a file" if v is not None and v.is_dir() else None


def _login_counters(v: str) -> str | None:
    return None if v == "database" else _CACHE_STORE(v)


def _rulebook_file(v: str) -> str | None:
    # A name is looked up in gis/rulebooks/ (the city check); a path must be there.
    return existing_file(v) if v.endswith(".toml") else None


@dataclass(frozen=True)
class Settings:
    """Everything a city sets about its server; ``load`` builds it, ``current()`` gives it."""

    # ----------------------------------------------------------------- database and sessions
    database_url: str = setting(
        "DATABASE_URL", "", "the database: postgresql+psycopg://… (PostGIS) or sqlite:///…", _DATABASE,
        key="SQLALCHEMY_DATABASE_URI", sensitive=True, unset="SQLite in instance/lateral.sqlite")
    # Unset, a random key is made once and kept in instance/secret_key (make run).
    secret_key: str = setting(
        "SECRET_KEY", "", "signs log-in cookies; the same on every host", sensitive=True,
        unset="made once, kept in instance/secret_key")
    # Served over HTTPS (docs/deploy.md): the cookie travels over HTTPS only.
    session_cookie_secure: bool = setting(
        "SESSION_COOKIE_SECURE", False, "the log-in cookie is sent over HTTPS only")
    # Behind nginx (docs/deploy.md): trust one proxy's X-Forwarded-For/-Proto/-Host/-Port,
    # so links are https:// and the client's address is the tablet's, not nginx's.
    # Off by default: a server reached directly must not believe those headers.
    behind_proxy: bool = setting(
        "LATERAL_BEHIND_PROXY", False, "believe one proxy's X-Forwarded-* headers (nginx in front)")
    # ... and only from these addresses (server/core/web/proxies.py): a client that reaches
    # the app directly cannot forge its address (the login throttle's key) or its links.
    trusted_proxies: str = setting(
        "LATERAL_TRUSTED_PROXIES", "127.0.0.1,::1", "addresses or networks (CIDR) of the proxy, comma-separated",
        _networks)
    spatialite_library: str = setting(
        "SPATIALITE_LIBRARY_PATH", "mod_spatialite", "the SpatiaLite extension SQLite loads")

    # ------------------------------------------------------------------------------ the city
    # server/core/city.py: its rulebook, and the projected CRS its rules measure in.
    rulebook: str = setting(
        "LATERAL_RULEBOOK", DEFAULT_RULEBOOK, "the city's rulebook: a name in gis/rulebooks/ or a .toml path",
        _rulebook_file)
    measurement_crs: str | None = setting(
        "LATERAL_MEASUREMENT_CRS", None, "the projected CRS the rules measure in",
        unset="the rulebook's [measurement] crs")

    # ------------------------------------------------------------------- requests and pages
    # JSON bodies of the feature API; photos travel over tus with their own limit.
    max_body_bytes: int = setting(
        "LATERAL_MAX_BODY_BYTES", 2 * MiB, "largest JSON request body, in bytes", at_least(1),
        key="MAX_CONTENT_LENGTH")
    page_default: int = setting(
        "LATERAL_PAGE_DEFAULT", 100, "features in a page when the client names no limit", at_least(1))
    page_max: int = setting("LATERAL_PAGE_MAX", 5000, "most features in one page", at_least(1))
    # numberMatched of an /ogc first page with a bbox or filters: counted within this
    # time, else left out (a whole layer's comes from its triggers' count: issue #35).
    ogc_count_budget_ms: int = setting(
        "LATERAL_OGC_COUNT_BUDGET_MS", 100, "longest a filtered /ogc first page counts its matches, in ms",
        at_least(0))
    # server/core/web/compression.py. A 746 KB page of 1,000 parcels: gzip level 1 writes
    # 86 KB in 1.7 ms of CPU, level 5 70 KB in 3.4 ms (bench/README.md, "Compression
    # levels"). Level 1, nginx's own default: half the CPU for 16 KB more, which a city's
    # network carries in about a millisecond. Brotli (browsers) at quality 4: 65 KB in 2.2 ms.
    compress_min_bytes: int = setting(
        "LATERAL_COMPRESS_MIN_BYTES", 1024, "smaller responses are sent uncompressed", at_least(0),
        key="COMPRESS_MIN_SIZE")
    gzip_level: int = setting("LATERAL_GZIP_LEVEL", 1, "gzip level of responses", between(0, 9),
                              key="COMPRESS_LEVEL")
    brotli_quality: int = setting("LATERAL_BROTLI_QUALITY", 4, "Brotli quality of responses", between(0, 11),
                                  key="COMPRESS_BR_LEVEL")

    # ------------------------------------------------------------------ photos and the sync
    # docs/sync.md, docs/photos.md. Unset, photos are kept in instance/blobs.
    blob_backend: str | None = setting(
        "BLOB_STORE", None, "where photos are kept: local or s3", one_of("local", "s3"),
        key="BLOB_BACKEND", unset="local, in instance/blobs")
    blob_root: Path | None = setting("BLOB_ROOT", None, "the photos' folder with BLOB_STORE=local", folder,
                                     unset="instance/blobs")
    blob_s3_bucket: str | None = setting("BLOB_S3_BUCKET", None, "the bucket with BLOB_STORE=s3")
    blob_s3_endpoint: str | None = setting(
        "BLOB_S3_ENDPOINT", None, "an S3-compatible store's URL (not for AWS)", url("http", "https"))
    blob_s3_region: str | None = setting("BLOB_S3_REGION", None, "the bucket's region")
    blob_s3_prefix: str = setting("BLOB_S3_PREFIX", "", "a prefix for every key in the bucket")
    # What make_blob_store takes, given whole: tests and embedders (with credentials).
    blob_store_override: Mapping[str, Any] | None = setting(
        None, None, "the blob store as server.core.storage.make_blob_store takes it", key="BLOB_STORE",
        sensitive=True)
    tus_staging_dir: Path | None = setting(
        "TUS_STAGING_DIR", None, "where partial photo uploads wait; shared by every host", folder,
        unset="instance/tus")
    tus_expires_after: int = setting(
        "TUS_EXPIRES_AFTER", 24 * 3600, "seconds an unfinished upload is kept", at_least(1))
    # One user's unfinished uploads together (each up to PHOTO_MAX_BYTES, kept
    # TUS_EXPIRES_AFTER): a stolen token cannot fill the staging disk.
    tus_max_staged_bytes_per_user: int = setting(
        "TUS_MAX_STAGED_BYTES_PER_USER", 4 * 50 * MiB, "bytes one user's unfinished uploads may claim together",
        at_least(1))
    # Photo upload chunk: what a cut connection costs at most to send again.
    field_tus_chunk_bytes: int = setting(
        "FIELD_TUS_CHUNK_BYTES", MiB, "bytes the field app sends per upload request", at_least(1))
    photo_max_bytes: int = setting("PHOTO_MAX_BYTES", 50 * MiB, "largest photo, in bytes", at_least(1))
    # 50 MP: more than a tablet or phone camera makes (12-48 MP); the display image
    # of a photo at the limit stays within a worker's memory (bench_photo_memory.py).
    photo_max_pixels: int = setting("PHOTO_MAX_PIXELS", 50_000_000, "largest photo, in pixels", at_least(1))
    # Address space of the child process that decodes a big HEIF/PNG/TIFF/WebP
    # (server/field/photos/isolated.py): the worker's own memory does not follow the photo.
    photo_decode_memory_mib: int = setting(
        "PHOTO_DECODE_MEMORY_MIB", 1536, "memory (MiB) of the process that decodes a big photo", at_least(1))
    # Decoder children at once on one host, across its workers (server/field/photos/decoders.py):
    # each may take PHOTO_DECODE_MEMORY_MIB, so 2 of them at most 3 GiB.
    photo_decoders_per_host: int = setting(
        "PHOTO_DECODERS_PER_HOST", 2, "photo decoder processes at once on one host", at_least(1))
    sync_push_max_records: int = setting(
        "SYNC_PUSH_MAX_RECORDS", 100, "most records in one field sync push", at_least(1))
    sync_area_margin_m: float = setting(
        "SYNC_AREA_MARGIN_M", 150.0, "metres of network pulled around an inspector's parcels", at_least(0))
    # The field app's map background: a tile URL template ({z}/{x}/{y}); unset, the
    # map draws the network on a plain ground (no signal in a basement anyway).
    basemap_url: str | None = setting(
        "LATERAL_BASEMAP_URL", None, "the maps' background: a tile URL template ({z}/{x}/{y})",
        url("https", "http"), unset="none: a plain ground")
    basemap_attribution: str = setting("LATERAL_BASEMAP_ATTRIBUTION", "", "the basemap's credit line")
    # The job queue (server/core/queue/): Huey on instance/queue.sqlite3, or Redis.
    queue_uri: str | None = setting(
        "LATERAL_QUEUE_URI", None, "the job queue's store: sqlite:////file, or redis:// for several hosts",
        url("sqlite", "redis", "rediss", "unix"), sensitive=True, unset="instance/queue.sqlite3")
    queue_immediate: bool = setting(
        "LATERAL_QUEUE_IMMEDIATE", False, "run each job inside the request that asks (tests; no worker)")
    # Files written by export jobs (server/network/exports.py), kept a day.
    export_dir: Path | None = setting(
        "LATERAL_EXPORT_DIR", None, "where export jobs leave their files; shared with the job worker", folder,
        unset="instance/exports")
    # Map tiles kept by their layer's write version (server/network/tiles/cache.py).
    tile_cache_mb: int = setting(
        "LATERAL_TILE_CACHE_MB", 256, "most megabytes of map tiles kept in the folder (0: no tile cache)",
        at_least(0))
    tile_cache_dir: Path | None = setting(
        "LATERAL_TILE_CACHE_DIR", None, "where map tiles are kept; shared by this host's workers", folder,
        unset="instance/cache/tiles")
    tile_cache_uri: str | None = setting(
        "LATERAL_TILE_CACHE_URI", None, "a redis:// URL: map tiles kept there, shared by every host",
        url("redis", "rediss", "unix"), sensitive=True, unset="none: the folder")
    # A basemap the city serves itself: one PMTiles file of raster tiles, read by the maps
    # with HTTP range requests (/tiles/basemap.pmtiles) and kept whole on field tablets.
    basemap_pmtiles: Path | None = setting(
        "LATERAL_BASEMAP_PMTILES", None, "a PMTiles file of raster tiles Lateral serves as the maps' background",
        existing_file, unset="none: the city's own streets and parcels")
    # Letters shrink photos once per file version (server/notices/letters/notice.py).
    thumb_dir: Path | None = setting(
        "LATERAL_THUMB_DIR", None, "where photos shrunk for letters are kept", folder,
        unset="the system's temp folder")

    # ---------------------------------------------------------------------- logging in
    # Login throttling (server/core/web/throttle.py): failed password checks allowed per
    # username and per client address; the rate-limit counters' storage, memory or Redis.
    ratelimit_storage_uri: str = setting(
        "RATELIMIT_STORAGE_URI", "memory://", "where the portal's failed lookups are counted: memory:// (one "
        "process) or redis://… shared by every worker and host",
        _RATE_STORE, sensitive=True)
    # Failed log-ins are counted where every worker and host sees them: the database,
    # or a Redis (server/core/web/login_failures.py); memory:// is one process (tests).
    login_counters: str = setting(
        "LOGIN_COUNTERS", "database", "where failed log-ins are counted: database, or redis://… shared",
        _login_counters)
    login_failures_per_username: str = setting(
        "LOGIN_FAILURES_PER_USERNAME", "10 per 15 minutes",
        "failed log-ins per username from one address (then refused), and from anywhere (then slowed)",
        rate_limit)
    login_failures_per_address: str = setting(
        "LOGIN_FAILURES_PER_ADDRESS", "50 per 15 minutes", "failed log-ins allowed per address", rate_limit)
    login_slowdown_max_seconds: int = setting(
        "LOGIN_SLOWDOWN_MAX_SECONDS", 60, "longest wait between guesses at a username from unknown devices",
        at_least(1))
    # HTTP Basic (GIS clients): a checked credential is remembered this long
    # (server/core/web/basic_cache.py); memory:// per process or redis://… shared.
    basic_auth_cache_seconds: int = setting(
        "BASIC_AUTH_CACHE_SECONDS", 300, "seconds a checked Basic log-in is remembered (0: never)", at_least(0))
    basic_auth_cache_uri: str = setting(
        "BASIC_AUTH_CACHE_URI", "memory://", "where checked Basic log-ins are remembered", _CACHE_STORE,
        sensitive=True)
    # A device token unused this many days is refused like a revoked one.
    token_idle_days: int = setting("TOKEN_IDLE_DAYS", 90, "days a device token may go unused", at_least(1))
    # And however often it is used, a token works this many days after it was issued:
    # a token copied off a tablet does not live for ever by being used.
    token_max_age_days: int = setting(
        "TOKEN_MAX_AGE_DAYS", 90, "days a device token works after it was issued, used or not", at_least(1))

    # server/core/audit/anchors.py: each backup and daily tick append the audit chain's
    # head here, outside the database; `flask audit verify` compares.
    audit_anchors: Path | None = setting(
        "LATERAL_AUDIT_ANCHORS", None, "the file the audit chain's heads are appended to", _appendable,
        unset="instance/audit-anchors.log")

    # ---------------------------------------------------------------------------- permits
    # The scanned forms the clerk attaches to a permit (server/permits/attachments.py).
    permit_file_max_bytes: int = setting(
        "PERMIT_FILE_MAX_BYTES", 20 * MiB, "largest scanned form attached to a permit, in bytes", at_least(1))

    # ---------------------------------------------------------------------------- the portal
    # The owners' portal (server/portal/): the address every notice letter prints with its
    # lookup code, and how many failed lookups (a code with a parcel number) one client
    # address, and one code, may make (counted in RATELIMIT_STORAGE_URI's storage).
    portal_url: str | None = setting(
        "LATERAL_PORTAL_URL", None, "the owners' portal's address, printed on every notice letter and in the "
        "links of emails to owners sent outside a web request (the daily tick)",
        url("https", "http"), unset="this server's /portal/ as the mailing request reached it")
    portal_lookups_per_address: str = setting(
        "PORTAL_LOOKUPS_PER_ADDRESS", "20 per hour", "failed portal lookups allowed per client address", rate_limit)
    portal_lookups_per_code: str = setting(
        "PORTAL_LOOKUPS_PER_CODE", "5 per hour", "failed portal lookups allowed per lookup code", rate_limit)
    portal_file_max_bytes: int = setting(
        "PORTAL_FILE_MAX_BYTES", 15 * MiB, "largest file an owner sends with a proof of correction, in bytes",
        at_least(1))
    # A plumber's CCTV video of a lateral (server/portal/cctv.py), sent over tus: a
    # 100 ft lateral filmed at 1080p for 10 minutes is some 300-600 MB.
    cctv_max_bytes: int = setting(
        "CCTV_MAX_BYTES", 2 * 1024 * MiB, "largest CCTV video a plumber uploads, in bytes", at_least(1))

    # ---------------------------------------------------------------------------- email
    # The city's mail server, for the messages owners ask for (server/core/mail.py).
    # Unset, nothing is sent (and the portal does not offer to send anything).
    smtp_host: str | None = setting("SMTP_HOST", None, "the city's mail server; unset: no email is sent",
                                    unset="none: no email")
    smtp_port: int = setting("SMTP_PORT", 587, "the mail server's port", between(1, 65535))
    smtp_starttls: bool = setting("SMTP_STARTTLS", True, "upgrade the mail connection with STARTTLS")
    smtp_username: str | None = setting("SMTP_USERNAME", None, "the mail server's login, if it asks for one")
    smtp_password: str | None = setting("SMTP_PASSWORD", None, "the mail server's password", sensitive=True)
    smtp_sender: str = setting("SMTP_SENDER", "lateral@localhost", "the From address of every message")
    smtp_timeout: float = setting("SMTP_TIMEOUT", 10.0, "seconds to wait for the mail server", at_least(1))

    # ------------------------------------------------------------------- outside services
    # Every call to S3, Redis or PostgreSQL waits at most this long to connect, and S3 and
    # Redis this long for each answer: a service that hangs costs a request one timeout
    # (503 store_unavailable for photos), never a worker held until it comes back.
    connect_timeout: float = setting(
        "LATERAL_CONNECT_TIMEOUT", 5.0, "seconds to wait for S3, Redis or PostgreSQL to accept a connection",
        at_least(0.1))
    read_timeout: float = setting(
        "LATERAL_READ_TIMEOUT", 30.0, "seconds to wait for S3 or Redis to answer once connected", at_least(0.1))

    # ---------------------------------------------------------------------------- doctor
    # `flask --app server doctor`: the least free disk space, and how old the last tick
    # or backup may be, before each is reported as a problem.
    doctor_min_free_mb: int = setting(
        "LATERAL_DOCTOR_MIN_FREE_MB", 2048, "doctor: least free disk space (MB) where Lateral writes",
        at_least(0))
    doctor_job_max_age_hours: float = setting(
        "LATERAL_DOCTOR_JOB_MAX_AGE_HOURS", 48.0, "doctor: hours since the last tick or backup", at_least(0))

    @property
    def blob_store(self) -> dict[str, Any] | None:
        """What ``make_blob_store`` takes; None for the default (``instance/blobs``)."""
        if self.blob_store_override is not None:
            return dict(self.blob_store_override)
        if self.blob_backend == "s3":
            config = {"backend": "s3", "bucket": self.blob_s3_bucket, "endpoint_url": self.blob_s3_endpoint,
                      "region": self.blob_s3_region, "prefix": self.blob_s3_prefix}
            return {k: v for k, v in config.items() if v is not None}
        if self.blob_backend == "local" and self.blob_root is not None:
            return {"backend": "local", "root": str(self.blob_root)}
        return None

    def as_config(self) -> dict[str, Any]:
        """The ``app.config`` keys: every setting (folders as text, as they always were) and FIXED."""
        config: dict[str, Any] = dict(FIXED)
        for f in fields(self):
            value = getattr(self, f.name)
            config[spec_of(f).key] = str(value) if isinstance(value, Path) else value
        config["BLOB_STORE"] = self.blob_store
        return config


#: ``app.config`` keys that are Lateral's choices, not a city's (overrides may still set them).
FIXED: Mapping[str, Any] = {
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Lax",
    "SQLALCHEMY_TRACK_MODIFICATIONS": False,
    # OpenAPI (flask-smorest)
    "API_TITLE": "Lateral",
    "API_VERSION": "v1",
    "OPENAPI_VERSION": "3.0.3",
    "OPENAPI_URL_PREFIX": "/api/v1",
    "OPENAPI_JSON_PATH": "openapi.json",
}


# ------------------------------------------------------------------------------ secret key

# Keys from examples and tutorials; a server signing its cookies with one of these lets
# anyone forge a session. Tests use "test" with TESTING on.
WEAK_SECRET_KEYS = frozenset({"", "dev", "test", "secret", "changeme", "change-me", "development",
                              "secret-key", "secret_key", "your-secret-key", "lateral"})
MIN_SECRET_KEY_LENGTH = 16
_MAKE_A_KEY = "python3 -c 'import secrets; print(secrets.token_hex(32))'"


def weak_secret(key: str) -> str | None:
    """Why ``key`` must not sign a production server's cookies, or None."""
    if key.strip().lower() in WEAK_SECRET_KEYS:
        return (f"is a well-known default ({key!r}): anyone can forge a log-in. Set it to a long random value "
                f"({_MAKE_A_KEY}), or leave it unset to have one made and kept in instance/secret_key")
    if len(key) < MIN_SECRET_KEY_LENGTH:
        return f"is only {len(key)} characters; use at least {MIN_SECRET_KEY_LENGTH} random ones"
    return None


def _instance_secret(instance_path: Path) -> str:
    """A stable secret key kept in ``instance/`` so sessions survive restarts."""
    path = instance_path / "secret_key"
    if not path.exists():
        instance_path.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


# --------------------------------------------------------------------- checks across fields

def _pages(s: Settings) -> Iterator[tuple[str, str]]:
    if s.page_default > s.page_max:
        yield "page_default", f"is more than LATERAL_PAGE_MAX ({s.page_max})"


def _blobs(s: Settings) -> Iterator[tuple[str, str]]:
    if s.blob_backend == "s3" and not s.blob_s3_bucket:
        yield "blob_s3_bucket", "must be set when BLOB_STORE=s3"
    given = s.blob_store_override
    if given is not None:
        backend = given.get("backend")
        if backend not in ("local", "s3"):
            yield "blob_store_override", f"names the backend {backend!r}, not local or s3"
        elif not given.get("root" if backend == "local" else "bucket"):
            yield "blob_store_override", f"a {backend} store needs its {'root' if backend == 'local' else 'bucket'}"


def _city(s: Settings) -> Iterator[tuple[str, str]]:
    """The rulebook loads and the CRS measures: what ``City`` would fail on at its first use."""
    try:
        rulebook = load_rulebook(s.rulebook)
    except RulebookError as exc:
        yield "rulebook", str(exc)
        return
    try:
        Measurer(s.measurement_crs or rulebook.measurement_crs)
    except (MeasurementCRSError, CRSError) as exc:
        yield ("measurement_crs" if s.measurement_crs else "rulebook"), str(exc).splitlines()[0]


def _production(s: Settings) -> Iterator[tuple[str, str]]:
    reason = weak_secret(s.secret_key)
    if reason:
        yield "secret_key", reason


_ACROSS: tuple[Callable[[Settings], Iterator[tuple[str, str]]], ...] = (_pages, _blobs, _city)


# ---------------------------------------------------------------------------- reading

@cache
def _types() -> dict[str, Any]:
    return get_type_hints(Settings)


def _name(field_name: str) -> str:
    spec = spec_of(_FIELDS[field_name])
    return spec.env or spec.key


def _shown(field_name: str, value: Any) -> str | None:
    if spec_of(_FIELDS[field_name]).sensitive or value is None:
        return None
    return repr(str(value) if isinstance(value, Path) else value)


def problems(settings: Settings, *, production: bool = True, names: Mapping[str, str] | None = None,
             skip: frozenset[str] = frozenset()) -> list[Problem]:
    """What is wrong with ``settings``: each field's checks, then the checks across fields.

    Args:
        production: Also refuse what only DEBUG or TESTING may use (a weak secret key).
        names: How a field was given, where not by its variable (an override's key).
        skip: Fields already reported (their text did not parse).
    """
    names = names or {}
    found: dict[str, Problem] = {}
    for f in fields(settings):
        value = getattr(settings, f.name)
        reason = next((r for check in spec_of(f).checks if (r := check(value))), None)
        if reason and f.name not in skip:
            found[f.name] = Problem(names.get(f.name, _name(f.name)), reason, _shown(f.name, value))
    for rule in (*_ACROSS, *((_production,) if production else ())):
        for field_name, reason in rule(settings):
            # One reason a variable: a value that failed its own check says nothing more.
            if field_name not in found and field_name not in skip:
                found[field_name] = Problem(names.get(field_name, _name(field_name)), reason)
    return list(found.values())


def load(environ: Mapping[str, str], overrides: Mapping[str, Any] | None = None, *, instance_path: str | Path,
         production: bool) -> Settings:
    """The settings of ``environ``, each replaced by an override of its ``app.config`` key.

    Args:
        environ: Usually ``os.environ``.
        overrides: ``app.config`` keys; keys that are no setting are left to the caller.
        instance_path: The Flask instance folder (the SQLite file and secret key when unset).
        production: Neither DEBUG nor TESTING: a weak secret key is refused.

    Raises:
        SettingsError: naming every variable that does not parse or pass its checks.
    """
    overrides = overrides or {}
    values: dict[str, Any] = {}
    names: dict[str, str] = {}
    unparsed: list[Problem] = []
    for f in fields(Settings):
        spec = spec_of(f)
        if spec.key in overrides:
            names[f.name], raw = spec.key, overrides[spec.key]
        elif spec.env and environ.get(spec.env, "").strip():
            names[f.name], raw = spec.env, environ[spec.env]
        else:
            continue
        value, reason = parse(raw, _types()[f.name])
        if reason:
            unparsed.append(Problem(names[f.name], reason, None if spec.sensitive else repr(raw)))
        else:
            values[f.name] = value
    given = frozenset(names)
    settings = _resolved(Settings(**values), Path(instance_path), given)
    found = unparsed + problems(settings, production=production, names=names, skip=given - values.keys())
    if found:
        raise SettingsError(found)
    return settings


def _resolved(settings: Settings, instance: Path, given: frozenset[str]) -> Settings:
    """Fill what an unset variable means inside the instance folder."""
    changes: dict[str, Any] = {}
    if "database_url" not in given:
        changes["database_url"] = f"sqlite:///{instance / 'lateral.sqlite'}"
    if "secret_key" not in given:
        changes["secret_key"] = _instance_secret(instance)
    return replace(settings, **changes)


_FIELDS = {f.name: f for f in fields(Settings)}
#: The ``app.config`` keys the settings fill (and an override of which goes through ``load``).
KEYS = frozenset(spec_of(f).key for f in fields(Settings))
#: The environment variables the settings are read from.
ENVIRONMENT_VARIABLES: frozenset[str] = frozenset(
    env for env in (spec_of(f).env for f in fields(Settings)) if env is not None)


# ------------------------------------------------------------------------------- the app

def bind(app: Flask, settings: Settings) -> None:
    """Attach ``settings`` to ``app``."""
    app.extensions[EXTENSION] = settings


def of(app: Flask) -> Settings:
    """The settings ``app`` was made with."""
    settings: Settings = app.extensions[EXTENSION]
    return settings


def current() -> Settings:
    """The settings of the app handling this request or CLI command."""
    return of(current_app)


def variables() -> list[tuple[str, str, str]]:
    """``(variable, default, meaning)`` of every setting the environment gives: docs/deploy.md's table."""
    rows = []
    for f in fields(Settings):
        spec = spec_of(f)
        if spec.env is None:
            continue
        default = spec.unset or ("none" if f.default in (None, "") else _default_text(f.default))
        rows.append((spec.env, default, spec.meaning))
    return rows


def _default_text(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
