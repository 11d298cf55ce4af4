"""The bell's live count over a websocket: the signed-in user's own group only (``live.group_of``); the count is
sent at connect and again at every change."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from notifications.live import group_of
from notifications.models import Notification

UNAUTHENTICATED = 4401


@database_sync_to_async
def _unread(user_id: int) -> int:
    return Notification.objects.filter(recipient_id=user_id).unread().count()


class UnreadCountConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    group = ""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=UNAUTHENTICATED)
            return
        self.group = group_of(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"unread": await _unread(user.pk)})

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def unread_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({"unread": event["unread"]})
