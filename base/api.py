"""One JSON error body for every API failure:

    {"error": {"status": 400, "code": "invalid", "message": "...", "fields": [{"path": "...", "message": "..."}],
               "request_id": "..."}}

Services raise the ``ServiceError`` family; ``api_exception_handler`` (DRF's EXCEPTION_HANDLER) is the one
place it becomes this body. DRF's own errors (serializer validation, authentication, throttling) get the
same shape.

An answer lists at most ``MAX_REPORTED`` problems, each text at most ``MAX_TEXT`` characters; ``more`` counts the
problems not listed (absent when none are) and the message says so. A body of 200,000 unknown keys was answered
with 11.7 MB, naming every one, after ~3 s spent building DRF error objects for each; ``StrictInput`` now stops
building after the first few and only counts the rest.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from itertools import islice
from typing import Any

import psycopg
from django.core.exceptions import PermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions, pagination, serializers
from rest_framework.response import Response
from rest_framework.views import exception_handler

from base.errors import MAX_REPORTED
from base.parsers import printable
from base.requestid import current_request_id
from pincompute.errors import ServiceError, Unavailable

logger = logging.getLogger(__name__)

# The database cannot be reached or lost the connection: Django's wrappers of the driver's errors, and the driver's
# own when raised outside them (psycopg_pool's PoolTimeout, the wait for a pooled connection, is an
# OperationalError). A dependency outage, as a cluster's is: 503 with Retry-After, never a 500.
DATABASE_DOWN: tuple[type[Exception], ...] = (
    OperationalError,
    InterfaceError,
    psycopg.OperationalError,
    psycopg.InterfaceError,
)
DATABASE_RETRY_AFTER = 5.0


def database_unavailable(exc: BaseException) -> Unavailable | None:
    """The ``Unavailable`` a database outage is answered with (API and pages alike), logged with the driver's text
    (which names the server: never in the answer); None for any other exception."""
    if not isinstance(exc, DATABASE_DOWN):
        return None
    logger.error("The database is unavailable: %s: %s", type(exc).__name__, exc)
    return Unavailable("The database is unavailable; try again shortly.", retry_after=DATABASE_RETRY_AFTER)


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


MAX_TEXT = 1000  # characters of one message or path an answer quotes (a key may be as long as the body)


class ManyInvalid(exceptions.ValidationError):
    """A validation error listing the first problems found; ``more`` counts those left unbuilt."""

    def __init__(self, detail: Any, *, more: int) -> None:
        super().__init__(detail)
        self.more = more


def clipped(text: str) -> str:
    """``text`` cut at ``MAX_TEXT`` characters."""
    return text if len(text) <= MAX_TEXT else f"{text[:MAX_TEXT]}..."


def _text(text: str) -> str:
    return printable(clipped(text))


def error_body(
    status_code: int, code: str, message: str, fields: list[dict[str, str]] | None = None, *, more: int = 0
) -> dict:
    """The one error body, listing at most ``MAX_REPORTED`` problems (``more``: how many others there are). Its text
    may quote the input (a key, a value): each is cut at ``MAX_TEXT`` characters, and characters UTF-8 cannot encode
    (a lone surrogate from JSON's ``"\\ud800"``) are written as escapes: the renderer would fail on them, a 500."""
    fields = fields or []
    listed = fields[:MAX_REPORTED]
    more += len(fields) - len(listed)
    error: dict[str, Any] = {
        "status": status_code,
        "code": code,
        "message": _text(message) + (f" ({more} more problems not listed)" if more else ""),
        "fields": [{"path": _text(f["path"]), "message": _text(f["message"])} for f in listed],
        "request_id": current_request_id(),
    }
    if more:
        error["more"] = more
    return {"error": error}


def service_error_response(exc: ServiceError) -> Response:
    fields = [{"path": f.path, "message": f.message} for f in exc.fields]
    response = Response(error_body(exc.status, exc.code, exc.message, fields), status=exc.status)
    if isinstance(exc, Unavailable):
        response["Retry-After"] = str(max(1, math.ceil(exc.retry_after)))
    return response


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ServiceError):
        return service_error_response(exc)
    if (unavailable := database_unavailable(exc)) is not None:
        return service_error_response(unavailable)
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
        more = exc.more if isinstance(exc, ManyInvalid) else 0
        body = error_body(response.status_code, "invalid", message or "The request is invalid.", fields, more=more)
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


# --- the contract's input rules (the OpenAPI schema states them: ``base.api_schema``) --------------------


_TYPES: tuple[tuple[type[serializers.Field], type | tuple[type, ...], str], ...] = (
    (serializers.BooleanField, bool, "must be true or false"),
    (serializers.IntegerField, int, "must be a whole number"),
    (serializers.CharField, str, "must be a string"),
    (serializers.ChoiceField, str, "must be a string"),
)


def type_errors(field: serializers.Field, value: Any, path: str) -> dict[str, list[str]]:
    """Values of another JSON type than the schema's (DRF turns 5 into "5" and "true" into True): by path."""
    if value is None:
        return {}
    if isinstance(field, serializers.ListSerializer | serializers.ListField):
        child = field.child
        items = value if isinstance(value, list) else []
        return {k: v for i, item in enumerate(items) for k, v in type_errors(child, item, f"{path}[{i}]").items()}
    if isinstance(field, serializers.DictField):
        entries = value.items() if isinstance(value, Mapping) else ()
        return {k: v for key, item in entries for k, v in type_errors(field.child, item, f"{path}.{key}").items()}
    if isinstance(field, serializers.Serializer):
        entries = [(n, f, value[n]) for n, f in field.fields.items() if isinstance(value, Mapping) and n in value]
        return {k: v for n, f, item in entries for k, v in type_errors(f, item, f"{path}.{n}" if path else n).items()}
    if getattr(field, "checked_by_service", False):  # the service names a wrong value in its own words
        return {}
    for kind, python_type, message in _TYPES:
        if isinstance(field, kind):
            wrong = not isinstance(value, python_type) or (python_type is int and isinstance(value, bool))
            return {path: [message]} if wrong else {}
    return {}


class StrictInput(serializers.Serializer):
    """An input body exactly as the schema states it: a field it does not know is a 400 naming it (the schema
    says ``additionalProperties: false``), never silently dropped; a value of another JSON type than the field's
    is a 400 too (DRF would coerce 5 to "5"). Past ``MAX_REPORTED`` unknown fields the rest are counted, not named
    (``ManyInvalid``)."""

    unlisted = 0  # unknown fields found past the ones named

    def is_valid(self, *, raise_exception: bool = False) -> bool:
        try:
            return super().is_valid(raise_exception=raise_exception)
        except exceptions.ValidationError as exc:  # DRF raises a new one from the errors it kept: the count is ours
            if self.unlisted:
                raise ManyInvalid(exc.detail, more=self.unlisted) from None
            raise

    def unknown_field(self, key: str) -> str:
        """The message for a field the body does not take (a body may say what it does take)."""
        return "is not a field of this body"

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = (key for key in data if key not in self.fields or self.fields[key].read_only)
            errors = {str(key): [self.unknown_field(str(key))] for key in islice(unknown, MAX_REPORTED)}
            self.unlisted = sum(1 for _ in unknown)  # counted, not built: DRF makes objects of every message
            errors.update(type_errors(self, data, ""))
            if errors:
                raise exceptions.ValidationError(errors)
        return super().to_internal_value(data)


def query_int(request: Any, name: str, *, default: int | None, minimum: int, maximum: int | None = None) -> int | None:
    """A whole-number query parameter within its bounds (as the schema states them), else a 400 naming it."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or str(value) != raw.strip() or value < minimum or (maximum is not None and value > maximum):
        bound = f"from {minimum} to {maximum}" if maximum is not None else f"of at least {minimum}"
        raise exceptions.ValidationError({name: [f"must be a whole number {bound}"]})
    return value


class StrictLimitOffsetPagination(pagination.LimitOffsetPagination):
    """``limit`` 1 to ``max_limit`` and ``offset`` from 0, as the schema says; anything else is a 400 (DRF's
    own falls back to the default and accepts what the schema forbids)."""

    max_limit = 1000
    max_offset = 2**31 - 1  # past any row count; a larger one is PostgreSQL's "bigint out of range", a 500

    def get_limit(self, request: Any) -> int | None:
        return query_int(request, self.limit_query_param, default=self.default_limit, minimum=1, maximum=self.max_limit)

    def get_offset(self, request: Any) -> int:
        return query_int(request, self.offset_query_param, default=0, minimum=0, maximum=self.max_offset) or 0

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        bounds = {
            self.limit_query_param: {"minimum": 1, "maximum": self.max_limit},
            self.offset_query_param: {"minimum": 0, "maximum": self.max_offset},
        }
        for parameter in parameters:
            parameter["schema"] = {**parameter["schema"], **bounds.get(parameter["name"], {})}
        return parameters
