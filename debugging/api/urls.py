from django.urls import path

from debugging.api.archive import ArchivedLogsView
from debugging.api.pods import PodDebugView

urlpatterns = [
    path("projects/<str:project>/logs/archive/", ArchivedLogsView.as_view(), name="project-logs-archive"),
    path("projects/<str:project>/pods/<str:cluster>/<str:pod>/", PodDebugView.as_view(), name="pod-debug"),
]
