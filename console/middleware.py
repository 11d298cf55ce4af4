"""Middleware of the console (the project's top level, which may import every app)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse

from console.views.errors import page_not_found


class NotFoundMiddleware:
    """With DEBUG on (the embedded default, ``manage.py dev``), Django answers a 404 with its HTML technical page
    (the URL patterns, the view that raised) before the project's ``handler404`` is asked. This answers as
    production does instead: the portal's 404 page, and under /api/ the one JSON error body (a client such as the
    CLI reads it)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 404 and getattr(request, "resolver_match", None) is None:
            return page_not_found(request)  # no route matched: Django's technical 404 was rendered already
        return response

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        """A view's Http404 (a route matched, the object did not)."""
        return page_not_found(request, exc) if isinstance(exc, Http404) else None
