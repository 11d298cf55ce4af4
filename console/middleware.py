"""Middleware of the console (the project's top level, which may import every app)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from console.views.errors import page_not_found


class ApiNotFoundMiddleware:
    """With DEBUG on (the embedded default), Django answers a path no route matches with its HTML technical 404,
    before the project's ``handler404`` is asked: under /api/ that is the one JSON error body instead, as
    production answers (a client such as the CLI reads it)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code == 404
            and request.path.startswith("/api/")
            and response.get("Content-Type", "").startswith("text/html")
        ):
            return page_not_found(request)
        return response
