"""``lateral-field``: the field client's command line.

    lateral-field login https://lateral.example inspector1      # password on stdin or prompted
    lateral-field pull
    lateral-field templates
    lateral-field start clear-water-survey 42 --lon -91.497 --lat 44.303
    lateral-field answer <uuid> access granted
    lateral-field photo <uuid> sump_photo IMG_0412.jpg
    lateral-field finish <uuid>
    lateral-field sync
    lateral-field status

State lives in one profile folder (``--profile``, ``$LATERAL_FIELD_PROFILE``, or
``$XDG_DATA_HOME/lateral-field/default``). See ``docs/field-client.md``.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import socket
import sys
from pathlib import Path

from offline_client.http import Api, SyncError
from offline_client.store import Store, StoreError
from offline_client.sync import Sync


def default_profile() -> Path:
    if os.environ.get("LATERAL_FIELD_PROFILE"):
        return Path(os.environ["LATERAL_FIELD_PROFILE"])
    data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data_home) / "lateral-field" / "default"


def _value(text: str):
    """An answer as typed: JSON if it parses (numbers, lists, objects), else the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def cmd_login(store: Store, args) -> int:
    password = getpass.getpass("Password: ") if sys.stdin.isatty() else sys.stdin.readline().rstrip("\n")
    api = Api(args.url)
    token = api.login(args.user, password, args.device or f"lateral-field on {socket.gethostname()}")
    store.set(server_url=args.url, token=token, username=args.user)
    print(f"logged in to {args.url} as {args.user}")
    return 0


def cmd_pull(store: Store, args) -> int:
    report = Sync(store).pull()
    print(f"pulled {report.pulled_pages} page(s); {len(store.assignments())} assignment(s), "
          f"{len(store.templates())} template(s)")
    return 0


def cmd_templates(store: Store, args) -> int:
    for template in store.templates():
        print(f"{template['id']}\tv{template.get('version')}\t{template.get('title', '')}")
    for assignment in store.assignments():
        print(f"assignment {assignment['id']}: parcel {assignment.get('parcel_id')} "
              f"{assignment.get('template_id')} due {assignment.get('due_on')}")
    return 0


def cmd_start(store: Store, args) -> int:
    location = None
    if args.lon is not None and args.lat is not None:
        location = {"type": "Point", "coordinates": [args.lon, args.lat]}
    print(store.start_inspection(args.template, _value(args.parcel_id), location, args.replaces))
    return 0


def cmd_answer(store: Store, args) -> int:
    store.answer(args.uuid, args.item, _value(args.value))
    return 0


def cmd_photo(store: Store, args) -> int:
    print(store.attach_photo(args.uuid, args.item, args.file))
    return 0


def cmd_finish(store: Store, args) -> int:
    data = store.finish(args.uuid)
    print(f"queued {args.uuid} with {len(data['photos'])} photo(s)")
    return 0


def cmd_push(store: Store, args) -> int:
    sync = Sync(store)
    with sync.exclusive():
        report = sync.push(force=True)
        sync.upload_photos(force=True, report=report)
    _print_report(report)
    return 0 if report.clean else 3


def cmd_sync(store: Store, args) -> int:
    sync = Sync(store)
    if args.wait:
        report = sync.sync_until_settled(args.wait, workers=args.workers)
    else:
        report = sync.sync(workers=args.workers)
    _print_report(report)
    return 0 if report.clean else 3


def cmd_status(store: Store, args) -> int:
    status = store.status()
    if args.json:
        print(json.dumps(status, indent=2))
        return 0
    print(f"drafts: {status['drafts']}   queued: {status['queued']}   sent: {status['acknowledged']}   "
          f"rejected: {status['rejected']}")
    print(f"photos waiting: {status['photos_pending']} ({status['photo_bytes_pending'] / 1e6:.1f} MB); "
          f"inspections sent without all their photos: {status['awaiting_photos']}")
    print(f"last sync: {status['last_sync'] or 'never'}")
    for item in status["problems"]:
        print(f"  REJECTED {item['kind']} {item['uuid']}: {item['reason']}")
    for item in status["conflicts"]:
        print(f"  CONFLICT {item['kind']} {item['uuid']}: {item['reason']}")
    for item in status["retrying"]:
        print(f"  retrying {item['uuid']} (attempt {item['attempts']}): {item['error']}")
    return 0


def _print_report(report) -> None:
    print(f"records: {report.acknowledged} sent, {report.rejected} rejected, {report.retry} to retry; "
          f"photos: {report.photos_uploaded} uploaded, {report.photos_rejected} rejected, "
          f"{report.photos_retry} to retry")
    for error in report.errors:
        print(f"  {error}", file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lateral-field", description="Lateral field inspection client")
    parser.add_argument("--profile", type=Path, default=None, help="profile folder (default: %(default)s)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("login", help="get a device token (password on stdin or prompted)")
    p.add_argument("url")
    p.add_argument("user")
    p.add_argument("--device", help="device name shown on the server")
    p.set_defaults(func=cmd_login)
    sub.add_parser("pull", help="fetch assignments, templates and nearby features").set_defaults(func=cmd_pull)
    sub.add_parser("templates", help="list pulled templates and assignments").set_defaults(func=cmd_templates)
    p = sub.add_parser("start", help="start an inspection; prints its UUID")
    p.add_argument("template")
    p.add_argument("parcel_id")
    p.add_argument("--lon", type=float)
    p.add_argument("--lat", type=float)
    p.add_argument("--replaces", help="UUID of the inspection this one corrects")
    p.set_defaults(func=cmd_start)
    p = sub.add_parser("answer", help="answer an item (VALUE as JSON if it parses)")
    p.add_argument("uuid")
    p.add_argument("item")
    p.add_argument("value")
    p.set_defaults(func=cmd_answer)
    p = sub.add_parser("photo", help="attach a photo (copied into the profile)")
    p.add_argument("uuid")
    p.add_argument("item")
    p.add_argument("file", type=Path)
    p.set_defaults(func=cmd_photo)
    p = sub.add_parser("finish", help="close an inspection and queue it")
    p.add_argument("uuid")
    p.set_defaults(func=cmd_finish)
    sub.add_parser("push", help="send queued records and their photos").set_defaults(func=cmd_push)
    p = sub.add_parser("sync", help="push, upload photos, pull")
    p.add_argument("--workers", type=int, default=1, help="photos uploaded at once (default 1)")
    p.add_argument("--wait", type=float, default=0, metavar="SECONDS",
                   help="keep retrying (with back-off) up to SECONDS until everything is sent")
    p.set_defaults(func=cmd_sync)
    p = sub.add_parser("status", help="what is waiting, rejected or in conflict")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_status)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with Store(args.profile or default_profile()) as store:
        try:
            return args.func(store, args)
        except (StoreError, SyncError) as exc:
            print(f"lateral-field: {exc}", file=sys.stderr)
            return 2


if __name__ == "__main__":
    sys.exit(main())
