"""Routes of the accounts API, included by ``console.api.urls`` under ``/api/v1/``."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from accounts.api.views import ApiTokenViewSet, MeView

router = DefaultRouter(trailing_slash=True)  # as before the move: with format suffixes (tokens.json)
router.include_root_view = False
router.register("tokens", ApiTokenViewSet, basename="token")
urlpatterns = [path("me/", MeView.as_view(), name="me"), *router.urls]
