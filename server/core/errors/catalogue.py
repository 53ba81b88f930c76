"""Every error code Lateral answers with, declared once: its HTTP status and what it means.

Services raise :class:`~server.core.errors.LateralError` with one of these codes and never
a status; the web edge reads the status here, the tus server and the sync push results
read it here too, and ``docs/api.md``'s error table is printed from this
(``flask --app server errors table``). ``tests/core/test_error_catalogue.py`` fails on a code
raised in ``server/`` but missing here, and on a doc that differs. Grouped by who raises
them; a code belongs to one group even where several domains raise it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorSpec:
    """What one code means and how HTTP answers it.

    Attributes:
        status: The HTTP status of every answer with this code.
        meaning: One line for the API's readers (``docs/api.md``).
        http: HTTP's own code for the status: what a bare werkzeug exception of that
            status (an unknown route, a wrong method) is answered with.
    """

    status: int
    meaning: str
    http: bool = False


def _http(status: int, meaning: str) -> ErrorSpec:
    return ErrorSpec(status, meaning, http=True)


ERRORS: dict[str, ErrorSpec] = {
    # HTTP's own: one code per status werkzeug can raise, and the refusals that need no other name.
    "bad_request": _http(400, "the request is malformed: a stale form, a bad tus header"),
    "unauthorized": _http(401, "no login, or one that is no longer valid; `WWW-Authenticate` says how"),
    "forbidden": _http(403, "your role may not do this; `details.your_role`"),
    "not_found": _http(404, "unknown id or route"),
    "method_not_allowed": _http(405, "the route does not take this method; `Allow` lists those it does"),
    "not_acceptable": _http(406, "the route cannot answer in a type `Accept` allows"),
    "request_timeout": _http(408, "the request did not arrive in time"),
    "conflict": _http(409, "the request conflicts with the resource's state"),
    "gone": _http(410, "the resource is gone for good"),
    "length_required": _http(411, "the request needs a `Content-Length`"),
    "precondition_failed": _http(412, "a precondition of the request failed"),
    "payload_too_large": _http(413, "body over `LATERAL_MAX_BODY_BYTES` (2 MB by default)"),
    "uri_too_long": _http(414, "the URL is longer than the server takes"),
    "unsupported_media_type": _http(415, "the body is not of a type the route reads (JSON; tus: "
                                         "`application/offset+octet-stream`)"),
    "range_not_satisfiable": _http(416, "the byte range asked for lies outside the file"),
    "expectation_failed": _http(417, "the server cannot meet the `Expect` header"),
    "im_a_teapot": _http(418, "HTTP's joke status; Lateral never sends it"),
    "misdirected_request": _http(421, "the request reached a server that cannot answer it"),
    "invalid": _http(422, "the request breaks the contract: an id in the path out of range; in a sync "
                          "result, a record that breaks it (`details.fields`)"),
    "locked": _http(423, "the resource is locked"),
    "failed_dependency": _http(424, "a request this one depended on failed"),
    "precondition_required": _http(428, "`If-Match` missing"),
    "too_many_requests": _http(429, "too many requests; wait before trying again"),
    "request_header_fields_too_large": _http(431, "a header is larger than the server takes"),
    "unavailable_for_legal_reasons": _http(451, "withheld for legal reasons"),
    "internal_error": _http(500, "the server failed; the error was logged and nothing was changed"),
    "not_implemented": _http(501, "the server does not do what the request asks"),
    "bad_gateway": _http(502, "a server this one relies on answered badly"),
    "service_unavailable": _http(503, "the server cannot answer just now; try again later"),
    "gateway_timeout": _http(504, "a server this one relies on did not answer in time"),
    "http_version_not_supported": _http(505, "the request's HTTP version is not supported"),

    # Any request: bodies, parameters, logins, the database (server/core).
    "malformed_json": ErrorSpec(400, "the body is not JSON"),
    "json_too_deep": ErrorSpec(400, "the JSON body is nested deeper than 32 levels"),
    "invalid_fields": ErrorSpec(422, "unknown, missing or wrong-typed fields (a `cursor` this server did not "
                                     "issue); `details.fields` names them. Also any integer outside a 32-bit "
                                     "column (±2,147,483,647: ids, `after`, `offset`), a NUL character in any "
                                     "string, and a date outside the years 1800–2200, in the query, a form or "
                                     "the body"),
    "invalid_date": ErrorSpec(422, "a date in the future, or before the event it follows (a receipt before "
                                   "mailing, a decision before its appeal)"),
    "csrf_failed": ErrorSpec(403, "a cookie-authenticated write without the session's `X-CSRF-Token`"),
    "bad_credentials": ErrorSpec(401, "unknown user or wrong password"),
    "too_many_attempts": ErrorSpec(429, "too many failed logins for the username or from the address; "
                                        "`Retry-After`"),
    "weak_password": ErrorSpec(422, "a new password too short or too easy to guess"),
    "invalid_role": ErrorSpec(422, "a role that is not one of Lateral's"),
    "username_taken": ErrorSpec(409, "a user with this username exists"),
    "own_login": ErrorSpec(422, "an administrator disabling their own login"),
    "last_admin": ErrorSpec(422, "demoting or disabling the last active administrator"),
    "password_change_required": ErrorSpec(403, "a login with a published (seeded) password on a database "
                                               "that is not the demo's: set a new one at `/login` first"),
    "version_conflict": ErrorSpec(412, "`If-Match` is stale: someone changed the feature first"),
    "database_busy": ErrorSpec(503, "too many writes are waiting for the database (SpatiaLite); `Retry-After`"),
    "database_unavailable": ErrorSpec(503, "the database is not answering; nothing was changed; `Retry-After`"),

    # The portal: owners with a notice's lookup code (server/portal).
    "lookup_failed": ErrorSpec(404, "no notice answers to this lookup code and parcel number (the same answer "
                                    "whatever was wrong: the code, the parcel number, or an expired code)"),
    "lookup_required": ErrorSpec(401, "a portal route called before a lookup code and parcel number were "
                                      "entered, or after the code expired"),
    "license_expired": ErrorSpec(422, "a plumber's license past its expiry: registration, verification and new "
                                      "applications are refused"),
    "too_many_lookups": ErrorSpec(429, "too many failed lookups from the address or for the code; `Retry-After`"),

    # The network: features, the OGC API, tiles, exports (server/network).
    "invalid_geometry": ErrorSpec(422, "`details.reason`: `malformed`, `wrong_type`, `not_finite`, "
                                       "`out_of_range`, `projected_coordinates`, `unclosed_ring`, `invalid` "
                                       "(self-intersection …), `empty`"),
    "duplicate": ErrorSpec(409, "a unique value (parcel number) is taken; `details.existing_id`"),
    "not_your_finding": ErrorSpec(403, "changing a finding someone else recorded (its author and the "
                                       "superintendent may)"),
    "invalid_parameter": ErrorSpec(400, "an OGC API query parameter is unknown or malformed (a `cursor` this "
                                        "server did not issue, or with `offset`); `details.fields` names it"),
    "zoom_too_low": ErrorSpec(400, "a vector tile below zoom 12"),

    # Rules and violations (server/rules).
    "not_open": ErrorSpec(409, "changing a violation or an assignment that is no longer open (resolved, "
                               "waived, done, cancelled)"),
    "unknown_rule": ErrorSpec(422, "a rule id that is not registered (the rules page's run)"),
    "job_failed": ErrorSpec(500, "a job of the queue failed or did not end in time (the rules page's run); "
                                 "`details.job` names it, `GET /api/v1/jobs/<id>` holds its error"),

    # Field work: sync, inspections, assignments (server/field).
    "too_many_records": ErrorSpec(413, "a push of more records than the server takes at once; "
                                       "`details.max_records`"),
    "bad_cursor": ErrorSpec(400, "a pull `cursor` this server did not issue"),
    "uuid_reused": ErrorSpec(409, "a pushed record's UUID is stored with different content"),
    "stale_version": ErrorSpec(409, "a pushed feature edit based on an old version, held as a conflict for "
                                    "the superintendent"),
    "retry": ErrorSpec(503, "a simultaneous push wrote the same rows first; send the record again"),
    "unknown_template": ErrorSpec(422, "an inspection of a checklist version the server does not have"),
    "unknown_parcel": ErrorSpec(422, "an inspection of a parcel the server does not have"),
    "unknown_replaces": ErrorSpec(422, "a correction of an inspection the server does not have (push it first)"),
    "unknown_feature": ErrorSpec(422, "a feature edit of a feature the server does not have"),
    "not_your_inspection": ErrorSpec(403, "a correction of another inspector's inspection"),
    "already_replaced": ErrorSpec(409, "a correction of an inspection another correction already replaced"),
    "already_resolved": ErrorSpec(409, "deciding a sync conflict that was already decided"),
    "feature_gone": ErrorSpec(409, "applying a held edit to a feature deleted since"),
    "ordered_by_notice": ErrorSpec(409, "calling off a reinspection a notice ordered (send another inspector)"),

    # Photos and their uploads (tus, server/field/photos, server/field/uploads).
    "not_an_image": ErrorSpec(422, "an uploaded photo whose content is not an image"),
    "unsupported_format": ErrorSpec(422, "an image, but not JPEG, HEIF, TIFF, PNG or WebP"),
    "decompression_bomb": ErrorSpec(422, "a photo declaring more pixels than `PHOTO_MAX_PIXELS`"),
    "truncated": ErrorSpec(422, "a photo whose data ends early or is damaged"),
    "too_large": ErrorSpec(413, "an upload bigger than the largest photo taken (`Tus-Max-Size`)"),
    "upload_quota_exceeded": ErrorSpec(413, "one user's unfinished uploads would pass "
                                            "`TUS_MAX_STAGED_BYTES_PER_USER`"),
    "digest_mismatch": ErrorSpec(422, "a photo that does not hash to the SHA-256 its upload declared"),
    "tus_version_required": ErrorSpec(412, "a tus request without `Tus-Resumable: 1.0.0`"),
    "upload_exists": ErrorSpec(409, "creating an upload with an `upload_id` in use (ask its URL with HEAD)"),
    "offset_mismatch": ErrorSpec(409, "a tus PATCH whose `Upload-Offset` is not the server's"),
    "upload_expired": ErrorSpec(410, "an unfinished upload past its `Upload-Expires`"),
    "upload_locked": ErrorSpec(423, "another PATCH is writing the upload"),
    "checksum_mismatch": ErrorSpec(460, "a tus chunk that does not match its `Upload-Checksum`; it was "
                                        "discarded"),
    "completion_failed": ErrorSpec(500, "the upload arrived but could not be processed; a zero-byte PATCH "
                                        "retries"),
    "insufficient_storage": ErrorSpec(507, "a disk (staging, photo store, database) is full; the bytes are "
                                           "kept, try again once space is freed"),
    "store_unavailable": ErrorSpec(503, "the photo store is not answering; the photo is kept, try again"),
    "photo_check_failed": ErrorSpec(503, "the photo could not be checked just now; the upload is kept, try "
                                         "again"),
    "display_failed": ErrorSpec(503, "a photo's display image or thumbnail could not be made just now; "
                                     "`Retry-After`"),
    "not_displayable": ErrorSpec(422, "a stored photo whose pixels cannot be decoded; the original is "
                                      "available"),

    # Notices, mailings, appeals and the calendar (server/notices).
    "invalid_transition": ErrorSpec(409, "a notice event its state does not allow; `details.state`, "
                                         "`details.allowed_events`"),
    "use_mailings": ErrorSpec(409, "mailing a notice by event: mail through a mailing batch"),
    "use_decision_letter": ErrorSpec(409, "mailing a decision by event: mail the decision letter"),
    "address_unusable": ErrorSpec(422, "releasing a held notice whose owner still has no usable mailing "
                                       "address"),
    "reason_required": ErrorSpec(422, "complying a notice by hand without the reason in `note`, or voiding a "
                                      "mailing without its `reason`"),
    "not_mailed": ErrorSpec(404, "the notice (or the decision) has not been mailed: it has no letter yet, "
                                 "nothing to appeal"),
    "no_preview": ErrorSpec(409, "a held notice has no letter to preview"),
    "violation_already_noticed": ErrorSpec(409, "a concurrent draft put the violation in a notice first"),
    "violations_resolved": ErrorSpec(409, "mailing notices whose violations were resolved since; withdraw them"),
    "article_numbers_exhausted": ErrorSpec(409, "the rulebook's article-number serial range has too few left"),
    "count_mismatch": ErrorSpec(422, "recording a printed mailing with a count of letters that is not the "
                                     "batch's; `details.pieces`"),
    "mailing_recorded": ErrorSpec(409, "recording a mailing that is already recorded as mailed"),
    "mailing_superseded": ErrorSpec(409, "recording a printed mailing whose letters were printed again in a "
                                         "later batch; `details.moved_to`"),
    "void_too_late": ErrorSpec(409, "voiding a mailing after the day it was recorded (the post office has "
                                    "signed the book); `details.recorded_on`"),
    "article_number_used": ErrorSpec(409, "a PS 3800 sticker number already on another notice"),
    "step_recorded": ErrorSpec(422, "a step of substitute service recorded twice"),
    "no_substitute_service": ErrorSpec(409, "the substitute-service notice of a notice whose certified letter "
                                            "did not come back refused or unclaimed"),
    "no_decision_to_mail": ErrorSpec(409, "mailing a decision letter when no decision awaits one"),
    "no_pending_appeal": ErrorSpec(409, "deciding an appeal when none awaits a decision"),
    "no_further_appeal": ErrorSpec(409, "appealing a Common Council decision (§ 315-21H provides no further "
                                        "appeal)"),
    "decision_not_notified": ErrorSpec(409, "appealing to the Council before the Commission's decision was "
                                            "mailed"),
    "election_calendar_unchecked": ErrorSpec(422, "a deadline past the days the clerk has checked for "
                                                  "elections"),
    "rulebook_invalid": ErrorSpec(500, "the city's rulebook contradicts itself; the administrator fixes it"),
    "rulebook_choice_missing": ErrorSpec(409, "the city's rulebook has not made a choice the law leaves to the "
                                              "city (e.g. `[appeals] upheld_period`); `details.setting`"),

    # Permits and the inspections done under them (server/permits).
    "plumber_unlicensed": ErrorSpec(422, "a permit without the plumber's Wisconsin license number and its expiry "
                                         "(§ 315-11B)"),
    "plumber_license_expired": ErrorSpec(422, "a permit whose plumber's license has expired (§ 315-11B); "
                                              "`details.expired_on`"),
    "owner_consent_missing": ErrorSpec(422, "an application by someone other than the owner without the owner's "
                                            "written consent (§ 315-11E(1))"),
    "outside_limits": ErrorSpec(422, "a parcel outside the corporate limits with no connection on the rulebook's "
                                     "day (§ 315-11E(2)); `details.connected_by`"),
    "frozen_ground": ErrorSpec(409, "a street opening for a tap scheduled while the ground is frozen (TAP-FROZEN, "
                                    "§ 315-13A(3)); the superintendent may override with a reason"),
    "not_paid": ErrorSpec(409, "issuing a permit whose fees are not paid (§ 315-11E(3))"),
    "already_paid": ErrorSpec(409, "recording a payment for a permit already paid"),
    "tap_without_permit": ErrorSpec(422, "a tap recorded in the field without an issued tap permit for the parcel "
                                         "(TAP-PERMIT, § 315-13B(1))"),
    "permit_not_for_parcel": ErrorSpec(422, "a tap recorded with the number of another parcel's permit "
                                            "(TAP-PERMIT); `details.permit_parcel_id`"),
    "permit_not_for_tap": ErrorSpec(422, "a tap recorded with the number of a permit for work that taps no main "
                                         "(TAP-PERMIT); `details.kind`"),
    "permit_not_in_force": ErrorSpec(422, "a tap recorded with the number of a permit not issued, or closed, expired "
                                          "or withdrawn (TAP-PERMIT); `details.state`"),
    "corrections_required": ErrorSpec(422, "a failed inspection without the corrections it asks for"),

    # Plumbers' CCTV submittals (server/portal/cctv.py).
    "not_a_video": ErrorSpec(415, "a CCTV upload whose content is not MP4, QuickTime or WebM"),

    # Backups (server/operations).
    "backup_failed": ErrorSpec(500, "the database could not be copied"),
    "no_backup": ErrorSpec(404, "the folder holds no backup"),
    "damaged_backup": ErrorSpec(422, "the backup does not match its manifest"),
    "not_empty": ErrorSpec(409, "restoring into a database that already holds Lateral's tables"),
    "not_a_device": ErrorSpec(400, "only a device sending its API token reports its offline readiness"),
    "database_not_prepared": ErrorSpec(409, "the database is not prepared for a restore by the app's role"),
    "restore_failed": ErrorSpec(500, "the database could not be restored"),
}


def status_of(code: str) -> int:
    """The HTTP status of ``code``; a code missing from :data:`ERRORS` is a ``KeyError``."""
    try:
        return ERRORS[code].status
    except KeyError:
        raise KeyError(f"error code {code!r} is not in the catalogue (server/core/errors/catalogue.py)") from None


#: HTTP's own code for each status (werkzeug's exceptions carry only a status).
_HTTP_CODES = {spec.status: code for code, spec in ERRORS.items() if spec.http}


def http_code(status: int) -> str | None:
    """The catalogue's code for a bare HTTP ``status``, or None if it has none."""
    return _HTTP_CODES.get(status)
