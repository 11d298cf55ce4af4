"""Pages' half of the error mapping: a ``ServiceError`` that escapes a view becomes the matching error page.

Not-found and permission refusals go through Django's own 404/403 handlers (the pages every other
refusal shows); the rest render ``service_error.html`` with their status. DRF views never get here:
``base.api.api_exception_handler`` answers them with the JSON error body first.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import BadRequest, PermissionDenied
from django.core.handlers.exception import response_for_exception
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from workloads.core.errors import Forbidden, Invalid, NotFound, ServiceError, Unauthenticated, Unavailable

_AS_DJANGO: tuple[tuple[type[ServiceError], type[Exception]], ...] = (
    (NotFound, Http404),
    (Forbidden, PermissionDenied),
    (Unauthenticated, PermissionDenied),
    (Invalid, BadRequest),
)


class ServiceErrorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if not isinstance(exc, ServiceError):
            return None
        for ours, django_exc in _AS_DJANGO:
            if isinstance(exc, ours):
                return response_for_exception(request, django_exc(exc.message))
        response = render(request, "service_error.html", {"error": exc}, status=exc.status)
        if isinstance(exc, Unavailable):
            response["Retry-After"] = str(max(1, round(exc.retry_after)))
        return response
