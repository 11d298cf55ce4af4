"""Error pages that say what happened; JSON bodies under /api/."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template import loader

from base.api import json_error


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
    request_id = getattr(request, "request_id", "")
    if _is_api(request):
        return json_error(request, 500, "server_error", "The server failed; the error was logged.")
    template = loader.get_template("500.html")
    return HttpResponse(template.render({"request_id": request_id}), status=500)
