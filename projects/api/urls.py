"""Routes of the Projects API, included by ``console.api.urls`` under ``/api/v1/`` (namespace ``api``)."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from projects.api.policy_views import PolicyDefaultsView
from projects.api.quota_views import QuotaRequestViewSet
from projects.api.views import ProjectViewSet

router = SimpleRouter(trailing_slash=True)
router.register("projects", ProjectViewSet, basename="project")
router.register("quota-requests", QuotaRequestViewSet, basename="quota-request")
urlpatterns = [*router.urls, path("policy-defaults/", PolicyDefaultsView.as_view(), name="policy-defaults")]
