"""Routes of the workload, operation and insight APIs, included by ``console.api.urls`` under ``/api/v1/``
(namespace ``api``). ``<kind>`` is a kind (PinApp) or its plural (pinapps)."""

from django.urls import path

from workloads.api import diagnosis, insights, operations, pods, preview, views
from workloads.history.urls import api_urlpatterns as history_urls

ONE = "projects/<str:project>/workloads/<str:kind>/<str:name>/"

urlpatterns = [
    *history_urls,  # before ONE: a deleted workload's path has as many parts as an operation's
    path("workloads/", views.WorkloadListView.as_view(), name="workload-list"),
    path("projects/<str:project>/workloads/", views.ProjectWorkloadsView.as_view(), name="project-workloads"),
    path("projects/<str:project>/workloads/preview/", preview.WorkloadPreviewView.as_view(), name="workload-preview"),
    path("projects/<str:project>/timeline/", insights.ProjectTimelineView.as_view(), name="project-timeline"),
    path("projects/<str:project>/pods/", pods.ProjectPodsView.as_view(), name="project-pods"),
    path(ONE, views.WorkloadDetailView.as_view(), name="workload-detail"),
    path(f"{ONE}timeline/", insights.WorkloadTimelineView.as_view(), name="workload-timeline"),
    path(f"{ONE}diagnosis/", diagnosis.WorkloadDiagnosisView.as_view(), name="workload-diagnosis"),
    path(f"{ONE}rollback/", diagnosis.WorkloadRollbackView.as_view(), name="workload-rollback"),
]
urlpatterns += [
    path(f"{ONE}{operation}/", view.as_view(), name=f"workload-{operation}")
    for operation, view in operations.OPERATION_VIEWS.items()
]
