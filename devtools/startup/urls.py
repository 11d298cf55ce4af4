"""The portal's URLs plus the progress page."""

from django.urls import path

from console.urls import handler400, handler403, handler404, handler500
from console.urls import urlpatterns as portal_urlpatterns
from devtools.startup import views

urlpatterns = [path("dev/progress/", views.progress, name="dev-progress"), *portal_urlpatterns]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
