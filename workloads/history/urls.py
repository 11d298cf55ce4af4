"""The history's API routes, put before the workload routes by ``workloads.api.urls`` (``deleted`` is no kind)."""

from django.urls import path

from workloads.history import api, views

DELETED = "projects/<str:project>/workloads/deleted/"

api_urlpatterns = [
    path(DELETED, api.DeletedWorkloadsView.as_view(), name="workloads-deleted"),
    path(f"{DELETED}<str:kind>/<str:name>/", api.DeletedWorkloadView.as_view(), name="workload-deleted"),
]

page_urlpatterns = [
    path("<str:project>/deleted/", views.deleted_list, name="deleted-list"),
    path("<str:project>/deleted/<str:kind>/<str:name>/", views.deleted_detail, name="deleted-detail"),
]
