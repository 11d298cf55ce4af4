"""One JSON error body for every API failure:

    {"error": {"status": 400, "code": "invalid", "message": "...", "fields": [{"path": "...", "message": "..."}],
               "request_id": "..."}}

Services raise the ``ServiceError`` family; ``api_exception_handler`` (DRF's EXCEPTION_HANDLER) is the one
place it becomes this body. DRF's own errors (serializer validation, authentication, throttling) get the
same shape.
"""

from __future__ import annotations

import math
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

from base.requestid import current_request_id
from workloads.core.errors import ServiceError, Unavailable


def _flatten(detail: Any, prefix: str = "") -> list[dict[str, str]]:
    if isinstance(detail, dict):
        out: list[dict[str, str]] = []
        for key, value in detail.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if key == "non_field_errors":
                path = prefix
            out.extend(_flatten(value, path))
        return out
    if isinstance(detail, list):
        if all(not isinstance(d, dict | list) for d in detail):
            return [{"path": prefix, "message": str(d)} for d in detail]
        out = []
        for i, value in enumerate(detail):
            out.extend(_flatten(value, f"{prefix}[{i}]"))
        return out
    return [{"path": prefix, "message": str(detail)}]


def error_body(status_code: int, code: str, message: str, fields: list[dict[str, str]] | None = None) -> dict:
    return {
        "error": {
            "status": status_code,
            "code": code,
            "message": message,
            "fields": fields or [],
            "request_id": current_request_id(),
        }
    }


def service_error_response(exc: ServiceError) -> Response:
    fields = [{"path": f.path, "message": f.message} for f in exc.fields]
    response = Response(error_body(exc.status, exc.code, exc.message, fields), status=exc.status)
    if isinstance(exc, Unavailable):
        response["Retry-After"] = str(max(1, math.ceil(exc.retry_after)))
    return response


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ServiceError):
        return service_error_response(exc)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or "Not found.")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        message = "; ".join(f"{f['path']}: {f['message']}" if f["path"] else f["message"] for f in fields[:5])
        body = error_body(response.status_code, "invalid", message or "The request is invalid.", fields)
    else:
        detail = getattr(exc, "detail", str(exc))
        codes = exc.get_codes() if isinstance(exc, exceptions.APIException) else "error"
        code = codes if isinstance(codes, str) else "error"
        body = error_body(response.status_code, code, str(detail))
    response.data = body
    return response


def json_error(request: HttpRequest, status_code: int, code: str, message: str) -> JsonResponse:
    """For non-DRF endpoints under /api/ (e.g. 404 for an unknown path)."""
    return JsonResponse(error_body(status_code, code, message), status=status_code)
