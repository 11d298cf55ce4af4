"""The Secrets and ConfigMaps pages, under ``/projects/<name>/`` (``console.urls`` includes them)."""

from django.urls import re_path

from configs import views

KIND = r"(?P<name>[-a-zA-Z0-9_]+)/(?P<plural>secrets|configmaps)/"
OBJ = r"(?P<obj>[^/]+)/"

app_name = "configs"
urlpatterns = [
    re_path(rf"^{KIND}$", views.config_list, name="list"),
    re_path(rf"^{KIND}{OBJ}$", views.config_edit, name="edit"),
    re_path(rf"^{KIND}{OBJ}delete/$", views.config_delete, name="delete"),
]
