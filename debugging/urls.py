from django.urls import path

import base.converters  # noqa: F401 (registers the "id" path converter)
from debugging import views

app_name = "debugging"

urlpatterns = [
    path("sessions/<str:project>/", views.project_sessions, name="sessions"),
    path("recordings/<id:pk>/", views.recording_page, name="recording"),
    path("recordings/<id:pk>.cast", views.recording_cast, name="recording-cast"),
    path("workload/<str:namespace>/<str:workload>/logs/", views.workload_logs_everywhere, name="workload-logs"),
    path("<str:cluster>/<str:namespace>/logs/", views.workload_logs, name="logs"),
    path("<str:cluster>/<str:namespace>/<str:pod>/", views.pod_debug, name="pod"),
    path("<str:cluster>/<str:namespace>/<str:pod>/shell/", views.shell_panel, name="shell"),
]
