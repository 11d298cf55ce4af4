from django.urls import path

import base.converters  # noqa: F401 (registers the "id" path converter)
from base.audit import views

app_name = "audit"
urlpatterns = [
    path("", views.audit_list, name="list"),
    path("<id:pk>/", views.audit_detail, name="detail"),
]
