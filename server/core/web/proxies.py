"""Believe ``X-Forwarded-*`` only from the proxy in front (``LATERAL_TRUSTED_PROXIES``).

Behind nginx the client's address (the login throttle's key) and the scheme and host of
the links Lateral writes come from the proxy's headers. A request that reaches the app
directly (``podman run -p 8000:8000`` on a server whose port is open) must not be able
to say where it comes from: only a request whose peer is one of the configured proxy
addresses gets werkzeug's ``ProxyFix``; any other is taken as it arrived.
"""

from __future__ import annotations

import ipaddress

from werkzeug.middleware.proxy_fix import ProxyFix

from server.core.settings import parse_networks


class TrustedProxies:
    """WSGI middleware: ``ProxyFix`` (one proxy) for requests from the trusted addresses only."""

    def __init__(self, app, trusted: str):
        self.app = app
        self.trusted = parse_networks(trusted)
        self.fixed = ProxyFix(app, x_for=1, x_proto=1, x_host=1, x_port=1)

    def _from_proxy(self, environ) -> bool:
        try:
            peer = ipaddress.ip_address(environ.get("REMOTE_ADDR", ""))
        except ValueError:
            return False
        return any(peer in network for network in self.trusted)

    def __call__(self, environ, start_response):
        if self._from_proxy(environ):
            return self.fixed(environ, start_response)
        return self.app(environ, start_response)
