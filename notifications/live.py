"""The bell's live count: each signed-in page joins its user's group; a change of the unread count is sent there."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from redis.exceptions import RedisError

log = logging.getLogger(__name__)


def group_of(user_id: int) -> str:
    return f"notifications.{user_id}"


def announce_unread(user_id: int) -> None:
    """Send ``user_id``'s unread count to their open pages; a channel layer that is down only loses the live update
    (the count is right at the next page load)."""
    from notifications.models import Notification

    unread = Notification.objects.filter(recipient_id=user_id).unread().count()
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group_of(user_id), {"type": "unread.changed", "unread": unread})
    except (RedisError, OSError) as exc:
        log.warning("notifications: the live count for user %s was not sent: %s", user_id, exc)
