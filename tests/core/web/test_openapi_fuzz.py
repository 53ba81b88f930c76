"""Schemathesis against ``/api/v1/openapi.json``: generated requests for every operation,
on both databases, as an admin. No answer is a 5xx, and every answer matches the
document (status code, content type, headers, body schema).

One check is left out: ``positive_data_acceptance`` (a request valid by the document
answered with a 4xx). JSON Schema cannot say what the services refuse on purpose: a
polygon ring that does not close, an id that names no row, a notice event its state does
not allow. Those answers are documented error codes (docs/api.md). A write without its
``If-Match`` is 428 Precondition Required (RFC 6585), and tus refuses a request without
``Tus-Resumable`` with 412; the header checks are told to expect both.

The number of examples per operation is bounded (``LATERAL_FUZZ_EXAMPLES``, default 8)
so the run stays near a minute or two per database; raise it to hunt for more.
"""

from __future__ import annotations

import os

import schemathesis
from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("LATERAL_FUZZ_EXAMPLES", 8))


def _document() -> dict:
    """The OpenAPI document, from an app that touches no database (the same on both)."""
    from server import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://", "TESTING": True, "SECRET_KEY": "test"})
    return app.extensions["lateral_api"].spec.to_dict()


CONFIG = schemathesis.Config.from_dict({"checks": {
    "positive_data_acceptance": {"enabled": False},
    "missing_required_header": {"expected-statuses": [400, 401, 403, 406, 412, 415, 422, 428]},
    # tus answers a missing or wrong Tus-Resumable with 412, as its protocol says.
    "negative_data_rejection": {"expected-statuses": [400, 401, 403, 404, 405, 406, 409, 412, 415, 422, 428, 429]},
}})
schema = schemathesis.openapi.from_dict(_document(), config=CONFIG)
# A tus PATCH body is plain bytes.
schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")


# The admin's token of the database under test: schemathesis adds it as the login, so
# that the checks which take it away or spoil it (ignored_auth, negative headers) can.
_LOGIN: dict[str, str] = {}


@schema.auth(refresh_interval=None)
class AdminToken:
    def get(self, case, context):
        return _LOGIN.get("Authorization", "Bearer not-yet")

    def set(self, case, data, context):
        # Schemathesis offers requests' "gzip, deflate, br" but its WSGI transport reads
        # the body as sent, undecoded: ask for it as it is (tests/core/web/test_compression.py
        # checks the encodings).
        case.headers = {**(case.headers or {}), "Authorization": data, "Accept-Encoding": "identity"}


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_generated_requests_get_no_5xx_and_answers_match_the_document(case, app, auth):
    _LOGIN.update(auth["admin"])
    # This database's app, for the checks that send a request again, too.
    case.operation.app = app
    case.operation.schema.app = app
    case.call_and_validate()
