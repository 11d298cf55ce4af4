"""Websocket routes (terminal and log streams); importing this module does no other work."""

from __future__ import annotations

from django.urls import URLPattern, path

from debugging import consumers

_SEG = "<str:cluster>/<str:namespace>"

websocket_urlpatterns: list[URLPattern] = [
    path(f"ws/exec/{_SEG}/<str:pod>/<str:container>/", consumers.ExecConsumer.as_asgi()),
    path(f"ws/logs/{_SEG}/<str:pod>/<str:container>/", consumers.LogConsumer.as_asgi()),
    path(f"ws/logs/{_SEG}/", consumers.LogConsumer.as_asgi()),
]
