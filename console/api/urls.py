"""``/api/v1/``: every app's API views, wired into one namespace."""

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from base.audit.api import AuditEventViewSet
from console.api.views import ApiRootView, VersionView
from robots.urls import api_urlpatterns as robot_api
from webhooks.urls import api_urlpatterns as webhook_api

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("audit", AuditEventViewSet, basename="audit")

app_name = "api"
urlpatterns = [
    path("", ApiRootView.as_view(), name="root"),
    path("version/", VersionView.as_view(), name="version"),
    path("", include(router.urls)),
    path("", include("accounts.api.urls")),
    path("", include("clusters.api.urls")),
    path("", include("projects.api.urls")),
    path("", include("workloads.api.urls")),
    path("", include("rightsizing.api.urls")),  # after the workloads' (a deleted workload's route wins)
    path("", include("debugging.api.urls")),
    path("", include("usage.api.urls")),
    path("", include("search.api_urls")),
    path("", include(robot_api)),
    path("", include(webhook_api)),
    path("", include("configs.api.urls")),
    path("", include("notifications.api.urls")),
]
