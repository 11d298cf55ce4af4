from django.urls import path

from debugging import views

app_name = "debugging"

urlpatterns = [
    path("sessions/<str:project>/", views.project_sessions, name="sessions"),
    path("<str:cluster>/<str:namespace>/logs/", views.workload_logs, name="logs"),
    path("<str:cluster>/<str:namespace>/<str:pod>/", views.pod_debug, name="pod"),
    path("<str:cluster>/<str:namespace>/<str:pod>/shell/", views.shell_panel, name="shell"),
]
