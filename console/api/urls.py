from django.urls import include, path
from rest_framework.routers import DefaultRouter

from console.api import views

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("audit", views.AuditEventViewSet, basename="audit")
router.register("tokens", views.ApiTokenViewSet, basename="token")

app_name = "api"
urlpatterns = [
    path("", views.ApiRootView.as_view(), name="root"),
    path("me/", views.MeView.as_view(), name="me"),
    path("", include(router.urls)),
    path("", include("clusters.api.urls")),
]
