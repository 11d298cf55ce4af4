"""Included by ``console.api.urls`` under ``/api/v1/``."""

from django.urls import path

from rightsizing.api.views import RecommendationsView

urlpatterns = [
    path("projects/<str:project>/workloads/<str:kind>/<str:name>/recommendations/", RecommendationsView.as_view(),
         name="workload-recommendations"),
]  # fmt: skip
