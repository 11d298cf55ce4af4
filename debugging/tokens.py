"""API tokens on the websocket handshake, for the CLI and SDK (``pincompute logs -f`` / ``exec -it``).

A browser authenticates its websockets with the session cookie (``AuthMiddlewareStack``); a non-browser client
sends ``Authorization: Bearer pct_...`` on the handshake instead, checked by the very class the API uses
(``accounts.authentication.ApiTokenAuthentication``: active, unexpired, unrevoked, an active user). When the
header is present it decides alone: a forged, expired or revoked token leaves an anonymous user, which the
consumers refuse as usual (status message, close 4401), whatever cookie came with it. The consumers then
authorize and audit exactly as for the browser (``debugging.authz.resolve_pod``, ``shell.*`` / ``logs.open``).

A browser cannot set this header on a WebSocket, so it adds no cross-site path; the Origin check in front of
the stack (``console.asgi``) still applies (the client sends its portal's own origin).
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from rest_framework.exceptions import AuthenticationFailed


def user_for_authorization(header: bytes) -> Any:
    """The user of an ``Authorization`` header value, else an AnonymousUser (never raises)."""
    from accounts.authentication import ApiTokenAuthentication

    request = HttpRequest()  # what DRF's authentication reads: the header, through META and ``headers``
    request.method = "GET"  # a socket's handshake; what a read-only token may open is the consumer's to decide
    request.META["HTTP_AUTHORIZATION"] = header.decode("latin1")
    try:
        found = ApiTokenAuthentication().authenticate(request)
    except AuthenticationFailed:
        found = None
    return found[0] if found else AnonymousUser()


class BearerTokenMiddleware:
    """Sets ``scope["user"]`` from an ``Authorization`` header when the handshake carries one."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        header = next((value for name, value in scope.get("headers", []) if name == b"authorization"), None)
        if header is not None:
            user = await database_sync_to_async(user_for_authorization)(header)
            scope = {
                **scope,
                "user": user,
                "auth_method": "token" if user.is_authenticated else "refused",
                "authorization": header,  # re-checked while the socket is open (debugging.policy.recheck)
            }
        return await self.inner(scope, receive, send)
