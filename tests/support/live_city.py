"""A live Lateral server on a committed demo city, for tests that drive real clients."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from tests.support.databases import PASSWORD, fresh_app
from tests.support.live_server import LiveServer

CITY_PARCELS = 300


class LiveCity:
    """The running server: its URL, a bearer token, a login, and the app for counting."""

    def __init__(self, kind, app, url, token):
        self.kind, self.app, self.url, self.token = kind, app, url, token
        self.username, self.password = "gis-client", PASSWORD

    def count(self, model, *where) -> int:
        from sqlalchemy import func, select

        from server.core.extensions import db

        with self.app.app_context():
            return db.session.scalar(select(func.count(model.id)).where(*where))


@contextmanager
def serve_city(kind: str, tmp_dir: Path, parcels: int = CITY_PARCELS, living: bool = False):
    """A fresh ``kind`` database with the demo city (and its demo logins), served over HTTP.

    With ``living`` the survey is under way, as `make run` seeds it (server/demo/living.py).
    """
    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db
    from server.demo import seed as demo
    from server.field.api.photos import BLOBS

    with fresh_app(kind, tmp_dir) as app:
        with app.app_context():
            demo.seed(parcels=parcels, with_users=True, living=living,
                      blobs=app.extensions[BLOBS] if living else None)
            user = create_user("gis-client", "superintendent", PASSWORD)
            token = issue_token(user, "gis client")[0]
            db.session.commit()
        with LiveServer(app) as server:
            yield LiveCity(kind, app, server.url, token)
