"""Error pages that say what happened; JSON bodies under /api/."""

from __future__ import annotations

import sys
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader

from base.api import database_unavailable, error_body, json_error
from base.middleware import database_unavailable_page
from pincompute.errors import Unavailable


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def bad_request(request: HttpRequest, exception: Any = None) -> HttpResponse:
    if _is_api(request):
        return json_error(request, 400, "bad_request", "The request could not be understood.")
    return render(request, "400.html", {"exception": str(exception or "")}, status=400)


def permission_denied(request: HttpRequest, exception: Any = None) -> HttpResponse:
    message = str(exception or "") or "You do not have permission to see this page."
    if _is_api(request):
        return json_error(request, 403, "permission_denied", message)
    return render(request, "403.html", {"exception": message}, status=403)


def page_not_found(request: HttpRequest, exception: Any = None) -> HttpResponse:
    if _is_api(request):
        return json_error(request, 404, "not_found", f"No API endpoint at {request.path}.")
    return render(request, "404.html", {"exception": "", "path": request.path}, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    """500, or 503 when the error was the database being unreachable outside any view (the session or the user
    read by middleware): Django calls this handler while the exception is being handled."""
    unavailable = database_unavailable(sys.exc_info()[1] or Exception())
    if unavailable is not None:
        return _unavailable(request, unavailable)
    request_id = getattr(request, "request_id", "")
    if _is_api(request):
        return json_error(request, 500, "server_error", "The server failed; the error was logged.")
    template = loader.get_template("500.html")
    return HttpResponse(template.render({"request_id": request_id}), status=500)


def _unavailable(request: HttpRequest, exc: Unavailable) -> HttpResponse:
    """The 503 page or body, rendered without the request's context (it would read the session from the database)."""
    if _is_api(request):
        response: HttpResponse = JsonResponse(error_body(exc.status, "unavailable", exc.message), status=exc.status)
        response["Retry-After"] = str(max(1, round(exc.retry_after)))
        return response
    return database_unavailable_page(exc)
