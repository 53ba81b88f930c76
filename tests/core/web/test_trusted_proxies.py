"""``X-Forwarded-*`` is believed only from the configured proxy addresses (issue 30)."""

from __future__ import annotations

import pytest

from server.core.access import PUBLIC, access


def probe_app(tmp_path, **config):
    from server import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.sqlite'}", "TESTING": True,
                      "SECRET_KEY": "test", "LATERAL_BEHIND_PROXY": True, **config})
    seen: dict = {}

    @app.route("/_probe")
    @access(PUBLIC)  # the test's own route, declared
    def _probe():
        from flask import request

        seen.update(scheme=request.scheme, addr=request.remote_addr, host=request.host)
        return ""

    return app, seen


FORWARDED = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.5", "X-Forwarded-Host": "evil.example"}


@pytest.mark.parametrize("peer, believed", [("10.0.0.2", True), ("10.0.1.9", True), ("192.0.2.50", False)])
def test_forwarded_headers_count_only_from_the_proxy(tmp_path, peer, believed):
    app, seen = probe_app(tmp_path, LATERAL_TRUSTED_PROXIES="10.0.0.2, 10.0.1.0/24")
    app.test_client().get("/_probe", headers=FORWARDED, environ_base={"REMOTE_ADDR": peer})
    if believed:
        assert seen == {"scheme": "https", "addr": "203.0.113.5", "host": "evil.example"}
    else:
        assert seen["addr"] == peer and seen["scheme"] == "http" and seen["host"] != "evil.example"


def test_a_bad_proxy_list_stops_the_start(tmp_path):
    from server.core.setting_types import SettingsError

    with pytest.raises(SettingsError, match="LATERAL_TRUSTED_PROXIES"):
        probe_app(tmp_path, LATERAL_TRUSTED_PROXIES="nginx.local")
