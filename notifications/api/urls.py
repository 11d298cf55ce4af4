"""Routes of the notification API, included by ``console.api.urls`` under ``/api/v1/``."""

from django.urls import path

import base.converters  # noqa: F401 (registers the "id" path converter)
from notifications.api.views import (
    NotificationListView,
    NotificationReadAllView,
    NotificationReadView,
    PreferenceView,
)

urlpatterns = [
    path("notifications/", NotificationListView.as_view(), name="notification-list"),
    path("notifications/read-all/", NotificationReadAllView.as_view(), name="notification-read-all"),
    path("notifications/preferences/", PreferenceView.as_view(), name="notification-preferences"),
    path("notifications/<id:pk>/read/", NotificationReadView.as_view(), name="notification-read"),
]
