"""ASGI entry: HTTP through Django, websockets through Channels (Origin-checked, session-authenticated).

The application is built in a function so importing this module does no routing work of its own.
"""

from __future__ import annotations

import os
from typing import Any

from asgiref.sync import ThreadSensitiveContext
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "console.settings")


class SyncThreadPerSocket:
    """Each websocket connection runs its synchronous work (session and user lookup, ``database_sync_to_async``:
    authorization, session rows, audit, re-checks) on a thread of its own, as Django does for each HTTP request.
    Without a context, every socket of the process shares ONE thread: under load (bench/load.py: 100 shells and
    50 log streams opening with 200 people browsing) a shell took 10-40 s to open, queued behind the others."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async with ThreadSensitiveContext():
            await self.app(scope, receive, send)


def build_application() -> Any:
    django_asgi = get_asgi_application()  # sets up Django before consumers import models
    from channels.auth import AuthMiddlewareStack
    from channels.routing import ProtocolTypeRouter, URLRouter
    from channels.security.websocket import AllowedHostsOriginValidator

    from debugging.routing import websocket_urlpatterns

    return ProtocolTypeRouter(
        {
            "http": django_asgi,
            "websocket": SyncThreadPerSocket(
                AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
            ),
        }
    )


application = build_application()
