"""``/api/v1/``: every app's API views, wired into one namespace."""

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from accounts.api import ApiTokenViewSet, MeView
from base.audit.api import AuditEventViewSet
from console.api.views import ApiRootView

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("audit", AuditEventViewSet, basename="audit")
router.register("tokens", ApiTokenViewSet, basename="token")

app_name = "api"
urlpatterns = [
    path("", ApiRootView.as_view(), name="root"),
    path("me/", MeView.as_view(), name="me"),
    path("", include(router.urls)),
    path("", include("clusters.api.urls")),
    path("", include("projects.api.urls")),
    path("", include("workloads.api.urls")),
    path("", include("debugging.api.urls")),
    path("", include("usage.api.urls")),
]
