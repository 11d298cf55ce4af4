"""``{% unread_notifications as n %}``: the bell's count for the navigation."""

from __future__ import annotations

from typing import Any

from django import template

from notifications.models import Notification

register = template.Library()


@register.simple_tag(takes_context=True)
def unread_notifications(context: Any) -> int:
    user = getattr(context.get("request"), "user", None)
    if user is None or not user.is_authenticated:
        return 0
    return Notification.objects.filter(recipient=user).unread().count()
