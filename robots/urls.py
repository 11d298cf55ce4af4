"""Robot accounts: the API under ``/api/v1/projects/{project}/robots/`` and the project page's section."""

from django.urls import path

from robots import api, views

api_urlpatterns = [
    path("projects/<str:project>/robots/", api.RobotListView.as_view(), name="project-robots"),
    path("projects/<str:project>/robots/<str:robot>/", api.RobotDetailView.as_view(), name="project-robot"),
    path(
        "projects/<str:project>/robots/<str:robot>/rotate/", api.RobotRotateView.as_view(), name="project-robot-rotate"
    ),
]

app_name = "robots"
urlpatterns = [
    path("<slug:project>/robots/", views.section, name="section"),
    path("<slug:project>/robots/<slug:robot>/revoke/", views.revoke, name="revoke"),
    path("<slug:project>/robots/<slug:robot>/rotate/", views.rotate, name="rotate"),
]
