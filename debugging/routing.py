"""Websocket routes (terminal and log streams); importing this module does no other work.

Each consumer accepts the browser's session (``console.asgi``'s AuthMiddlewareStack) or, for the CLI and SDK,
an ``Authorization: Bearer`` API token on the handshake (``debugging.tokens``)."""

from __future__ import annotations

from typing import Any

from django.urls import URLPattern, path, re_path

from debugging.logs.consumer import LogConsumer
from debugging.logs.workload_consumer import WorkloadLogConsumer
from debugging.shell.consumer import ExecConsumer
from debugging.socketbase import UnmatchedConsumer
from debugging.tokens import BearerTokenMiddleware

_SEG = "<str:cluster>/<str:namespace>"


def _app(consumer: Any) -> Any:
    return BearerTokenMiddleware(consumer.as_asgi())


websocket_urlpatterns: list[URLPattern] = [
    path(f"ws/exec/{_SEG}/<str:pod>/<str:container>/", _app(ExecConsumer)),
    path(f"ws/logs/{_SEG}/<str:pod>/<str:container>/", _app(LogConsumer)),
    path(f"ws/logs/{_SEG}/", _app(LogConsumer)),
    path("ws/workload-logs/<str:namespace>/<str:workload>/", _app(WorkloadLogConsumer)),
    # Last: any other path (an empty part, a "/" or "%2F" inside a name) is a clean, audited 4404, not the
    # router's "No route found" exception (an HTTP 500 from the server).
    re_path(r"", _app(UnmatchedConsumer)),
]
