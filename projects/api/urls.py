"""Routes of the Projects API, included by ``console.api.urls`` under ``/api/v1/`` (namespace ``api``)."""

from rest_framework.routers import SimpleRouter

from projects.api.quota_views import QuotaRequestViewSet
from projects.api.views import ProjectViewSet

router = SimpleRouter(trailing_slash=True)
router.register("projects", ProjectViewSet, basename="project")
router.register("quota-requests", QuotaRequestViewSet, basename="quota-request")
urlpatterns = router.urls
