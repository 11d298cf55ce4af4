from django.urls import path

import base.converters  # noqa: F401 (registers the "id" path converter)
from accounts import views

app_name = "tokens"
urlpatterns = [
    path("", views.token_list, name="list"),
    path("<id:pk>/revoke/", views.token_revoke, name="revoke"),
]
