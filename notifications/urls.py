from django.urls import path

import base.converters  # noqa: F401 (registers the "id" path converter)
from notifications import views

app_name = "notifications"
urlpatterns = [
    path("", views.notification_list, name="list"),
    path("read-all/", views.notification_read_all, name="read-all"),
    path("preferences/", views.notification_preferences, name="preferences"),
    path("<id:pk>/read/", views.notification_read, name="read"),
]
