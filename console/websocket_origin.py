"""The websockets' Origin check: the handshake's Origin must EQUAL an allowed origin, scheme, host and port.

The allowed origins are the portal's own, as the handshake reached it (``http``/``https`` from the socket's scheme or
the TLS proxy's header, ``SECURE_PROXY_SSL_HEADER``, and the Host header, itself one of ``ALLOWED_HOSTS``), and each
``CSRF_TRUSTED_ORIGINS`` entry written out in full. These are the rules Django's CSRF check applies to an HTTP
request's Origin (``CsrfViewMiddleware._origin_verified``), which needs an ``HttpRequest``; the Host half here is
Django's own ``split_domain_port`` and ``validate_host``. Wildcard entries (``https://*.example.com``) are not
honoured for sockets: each origin is listed.

Channels' ``AllowedHostsOriginValidator`` (used before) compares host names with ``ALLOWED_HOSTS`` entries, which
carry no scheme or port: another scheme or port of the same host was accepted, and so was
``http://127.0.0.1:8000.evil.example`` (``urlparse`` reads its host name as ``127.0.0.1``). Its ``OriginValidator``
with full origins compares the port too, but raises on that malformed one (``ValueError`` from ``urlparse().port``)
and knows no request's own host.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

# An origin as browsers serialize it (RFC 6454): scheme "://" host [":" port], nothing else.
_ORIGIN = re.compile(r"(?:http|https)://(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?")


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    values = [value for key, value in scope.get("headers") or () if key.lower() == name]
    return values[0].decode("latin-1") if len(values) == 1 else None  # none, or more than one: no answer


def _allowed_hosts() -> list[str]:
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:  # as Django's HttpRequest.get_host
        hosts = [".localhost", "127.0.0.1", "[::1]"]
    return hosts


def _secure(scope: dict[str, Any]) -> bool:
    if scope.get("scheme") in ("wss", "https"):
        return True
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if not proxy:
        return False
    header, secure_value = proxy
    name = header.removeprefix("HTTP_").replace("_", "-").lower().encode("latin-1")
    sent = _header(scope, name)
    return sent is not None and sent.split(",")[0].strip() == secure_value


def own_origin(scope: dict[str, Any]) -> str | None:
    """``scheme://host[:port]`` the handshake was addressed to, when its Host is an allowed host; else None."""
    host = _header(scope, b"host")
    if not host:
        return None
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, _allowed_hosts()):
        return None
    return f"{'https' if _secure(scope) else 'http'}://{host.lower()}"


def allowed_origins(scope: dict[str, Any], trusted: Iterable[str]) -> set[str]:
    own = own_origin(scope)
    listed = {origin.lower().rstrip("/") for origin in trusted if "*" not in origin}
    return listed | ({own} if own else set())


def origin_allowed(scope: dict[str, Any]) -> bool:
    """Whether the handshake's one Origin is exactly an allowed origin."""
    origin = _header(scope, b"origin")
    if origin is None or not _ORIGIN.fullmatch(origin.lower()):
        return False
    return origin.lower() in allowed_origins(scope, settings.CSRF_TRUSTED_ORIGINS)


class SameOriginValidator:
    """ASGI middleware for websockets: a handshake whose Origin is not exactly allowed is refused (HTTP 403)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            await WebsocketDenier()(scope, receive, send)
            return
        await self.app(scope, receive, send)
