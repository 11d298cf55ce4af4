"""Routes of the Secrets and ConfigMaps API, included by ``console.api.urls`` under ``/api/v1/``."""

from django.urls import path

from configs.api.views import ConfigMapDetailView, ConfigMapListView, SecretDetailView, SecretListView

urlpatterns = [
    path("projects/<str:project>/secrets/", SecretListView.as_view(), name="project-secrets"),
    path("projects/<str:project>/secrets/<str:name>/", SecretDetailView.as_view(), name="project-secret"),
    path("projects/<str:project>/configmaps/", ConfigMapListView.as_view(), name="project-configmaps"),
    path("projects/<str:project>/configmaps/<str:name>/", ConfigMapDetailView.as_view(), name="project-configmap"),
]
