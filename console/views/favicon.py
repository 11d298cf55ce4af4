"""/favicon.ico for documents that link no icon (the admin, browsers asking on their own): the portal's SVG icon."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    return HttpResponsePermanentRedirect(static("dist/favicon.svg"))
