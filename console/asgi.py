"""ASGI entry: HTTP through Django (each body read up to ``REQUEST_BODY_MAX_BYTES``, never further:
``base.bodies``), websockets through Channels (the Origin exactly an allowed origin: ``console.websocket_origin``;
session-authenticated).

The application is built in a function so importing this module does no routing work of its own.
"""

from __future__ import annotations

import gc
import os
from typing import Any

from base import gcpauses
from console.env import env_int
from console.httphandler import get_asgi_application
from console.syncthreads import DEFAULT_THREADS, SyncThreadPool

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "console.settings")


def build_application() -> Any:
    django_asgi = get_asgi_application()  # sets up Django before consumers import models
    from channels.auth import AuthMiddlewareStack
    from channels.routing import ProtocolTypeRouter, URLRouter
    from django.conf import settings

    from base.bodies import BodyLimit
    from console.websocket_origin import SameOriginValidator
    from debugging.routing import websocket_urlpatterns
    from notifications.routing import websocket_urlpatterns as notification_routes

    return ProtocolTypeRouter(
        {
            # Each request's synchronous work (its middleware, view and signals) on one thread of a fixed pool,
            # not a new thread per request (console.syncthreads, console.httphandler).
            "http": BodyLimit(
                SyncThreadPool(django_asgi, threads=env_int("HTTP_SYNC_THREADS", DEFAULT_THREADS), name="http-sync"),
                settings.REQUEST_BODY_MAX_BYTES,
            ),
            # Each socket's synchronous work on one thread of a fixed pool (console.syncthreads).
            "websocket": SyncThreadPool(
                SameOriginValidator(AuthMiddlewareStack(URLRouter(notification_routes + websocket_urlpatterns))),
                threads=env_int("WEBSOCKET_SYNC_THREADS", DEFAULT_THREADS),
            ),
        }
    )


application = build_application()

# Everything loaded so far (Django, the apps, their modules) lives as long as the process: out of the cyclic GC's reach
# (CPython's gc.freeze, garbage collected first), a full collection walks ~45k objects instead of ~200k, and such a
# collection stalls every request of the worker (~150 ms each before, on a busy machine).
gc.collect()
gc.freeze()
gcpauses.install()  # what a full collection costs now is on /metrics (pinconsole_gc_pause_seconds)
