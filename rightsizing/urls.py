"""Included by ``console.urls`` under ``/workloads/``, after the workload pages (a deleted workload's page wins)."""

from django.urls import path

from rightsizing import views

app_name = "rightsizing"
ONE = "<str:project>/<str:kind>/<str:name>/recommendations/"
urlpatterns = [
    path(ONE, views.panel, name="panel"),
    path(f"{ONE}apply/", views.apply_page, name="apply"),
]
