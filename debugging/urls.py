from django.urls import path

import base.converters  # noqa: F401 (registers the "id" path converter)
from debugging.views import archive, debug, last_lines, logs, pods, recordings, sessions, shell

app_name = "debugging"

urlpatterns = [
    path("sessions/<str:project>/", sessions.project_sessions, name="sessions"),
    path("recordings/<id:pk>/", recordings.recording_page, name="recording"),
    path("recordings/<id:pk>.cast", recordings.recording_cast, name="recording-cast"),
    path("workload/<str:namespace>/<str:workload>/logs/", logs.workload_logs_everywhere, name="workload-logs"),
    path("workload/<str:namespace>/<str:workload>/archive/", archive.workload_archive, name="workload-archive"),
    path(
        "workload/<str:namespace>/<str:workload>/archive/download/",
        archive.workload_archive_download,
        name="workload-archive-download",
    ),
    path(
        "workload/<str:namespace>/<str:workload>/archive/last/",
        last_lines.workload_last_lines,
        name="workload-last-lines",
    ),
    path("<str:cluster>/<str:namespace>/logs/", logs.workload_logs, name="logs"),
    path("<str:cluster>/<str:namespace>/<str:pod>/", pods.pod_debug, name="pod"),
    path("<str:cluster>/<str:namespace>/<str:pod>/shell/", shell.shell_panel, name="shell"),
    path("<str:cluster>/<str:namespace>/<str:pod>/debug/", debug.debug_start, name="debug"),
    path("<str:cluster>/<str:namespace>/<str:pod>/debug/<str:name>/", debug.debug_container, name="debug-container"),
]
