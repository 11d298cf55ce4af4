from django.urls import path

from debugging.api.archive import ArchivedLogsView
from debugging.api.debug import DebugContainerView, DebugStartView
from debugging.api.pods import PodDebugView

urlpatterns = [
    path("projects/<str:project>/logs/archive/", ArchivedLogsView.as_view(), name="project-logs-archive"),
    path("projects/<str:project>/pods/<str:cluster>/<str:pod>/", PodDebugView.as_view(), name="pod-debug"),
    path(
        "projects/<str:project>/pods/<str:cluster>/<str:pod>/debug/", DebugStartView.as_view(), name="pod-debug-start"
    ),
    path(
        "projects/<str:project>/pods/<str:cluster>/<str:pod>/debug/<str:name>/",
        DebugContainerView.as_view(),
        name="pod-debug-container",
    ),
]
