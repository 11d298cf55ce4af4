"""A user's notifications, filtered as the page, the API and the CLI ask (only their own are ever read)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from base.errors import Invalid
from notifications.models import Event, Notification


def notifications_for(user: Any, *, project: str = "", event: str = "", unread: bool = False) -> QuerySet[Notification]:
    """``user``'s notifications, newest change first; ``event`` must be one of ``Event`` (else ``Invalid``)."""
    rows = Notification.objects.filter(recipient=user).select_related("project")
    if event:
        if event not in Event.values:
            raise Invalid.on("event", f"Unknown event {event!r}; one of: {', '.join(Event.values)}.")
        rows = rows.filter(event=event)
    if project:
        rows = rows.filter(project__name=project)
    if unread:
        rows = rows.unread()
    return rows


def projects_of(user: Any) -> list[str]:
    """The projects ``user`` has notifications about (the page's project filter offers these)."""
    names = Notification.objects.filter(recipient=user, project__isnull=False).values_list("project__name", flat=True)
    return sorted(set(names))
