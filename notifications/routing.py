"""Websocket routes of the notification centre (the bell's live count)."""

from __future__ import annotations

from django.urls import URLPattern, path

from notifications.consumers import UnreadCountConsumer

websocket_urlpatterns: list[URLPattern] = [path("ws/notifications/", UnreadCountConsumer.as_asgi())]
