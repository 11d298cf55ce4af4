"""The webhooks page (``/projects/<project>/webhooks/``) and API (``/api/v1/projects/<project>/webhooks/``)."""

from django.urls import path

from webhooks import views
from webhooks.api import views as api

api_urlpatterns = [
    path("projects/<str:project>/webhooks/", api.WebhookListView.as_view(), name="project-webhooks"),
    path("projects/<str:project>/webhooks/<str:name>/", api.WebhookDetailView.as_view(), name="project-webhook"),
    path(
        "projects/<str:project>/webhooks/<str:name>/routes/",
        api.WebhookRoutesView.as_view(),
        name="project-webhook-routes",
    ),
    path(
        "projects/<str:project>/webhooks/<str:name>/deliveries/",
        api.WebhookDeliveriesView.as_view(),
        name="project-webhook-deliveries",
    ),
    path(
        "projects/<str:project>/webhooks/<str:name>/test/", api.WebhookTestView.as_view(), name="project-webhook-test"
    ),
]

app_name = "webhooks"
urlpatterns = [
    path("<slug:project>/webhooks/", views.page, name="page"),
    path("<slug:project>/webhooks/<slug:name>/", views.detail, name="detail"),
    path("<slug:project>/webhooks/<slug:name>/test/", views.test_send, name="test"),
    path("<slug:project>/webhooks/<slug:name>/delete/", views.delete, name="delete"),
]
