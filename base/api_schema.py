"""The OpenAPI description as an exact contract (``DEFAULT_SCHEMA_CLASS``), and the one JSON error body
(``base.api``) as a serializer.

``ContractSchema`` writes down what every view can answer besides its own results, from what the view is: a
view behind authentication can answer 401, one with a permission beyond sign-in 403, a throttled one 429, a path
with parameters 404 (absent, or another tenant's), an operation that reads a body or query parameters 400, and
a write 413 (a body over the limit) and 415 (a media type it does not read, a content coding: ``base.bodies``).
Views add what only they know (403, 409, 503, 202, 304) with ``extend_schema``; a 429 or 503 says it carries
``Retry-After``. Request bodies name every field
they take (``additionalProperties: false``; ``base.api.StrictInput`` refuses others).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import permissions, serializers


class FieldErrorSerializer(serializers.Serializer):
    path = serializers.CharField(allow_blank=True, help_text='the field, e.g. "spec.template.containers[0].image"')
    message = serializers.CharField()


class ErrorSerializer(serializers.Serializer):
    status = serializers.IntegerField()
    code = serializers.CharField()
    message = serializers.CharField(allow_blank=True)
    fields = FieldErrorSerializer(many=True)
    request_id = serializers.CharField(allow_blank=True, allow_null=True)
    more = serializers.IntegerField(
        required=False, min_value=1, help_text="problems not listed in fields (an answer lists at most 20)"
    )


class ErrorBodySerializer(serializers.Serializer):
    error = ErrorSerializer()


def error_response(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorBodySerializer, description=description)


GENERIC_REFUSALS = {
    400: "the input is invalid (the error body names each field)",
    401: "no session, or a bad, expired or revoked token",
    403: "the caller's role may not do this",
    404: "absent, or another tenant's",
    413: "the body is over REQUEST_BODY_MAX_BYTES (refused before it is read)",
    415: "a body in a media type this operation does not read, or in a Content-Encoding (only identity is read)",
    429: "over the per-user rate (Retry-After)",
}
BODY_METHODS = ("POST", "PUT", "PATCH")
WRITE_METHODS = (*BODY_METHODS, "DELETE")  # base.bodies refuses a body over the limit or encoded on each
OPEN_PERMISSIONS = (permissions.AllowAny, permissions.IsAuthenticated)
RETRY_LATER = ("429", "503")  # answered with Retry-After (base.api, base.throttling)


class ContractSchema(AutoSchema):
    """drf-spectacular's schema with every refusal a view can answer documented (see the module's docstring)."""

    def refusals(self) -> list[int]:
        view = self.view
        codes = []
        parameters = self._get_parameters()
        paginated = self._is_list_view() and self._get_paginator() is not None
        has_body = self.method in BODY_METHODS and self.get_request_serializer() is not None
        if has_body or paginated or any(p.get("in") == "query" for p in parameters):
            codes.append(400)
        if not all(isinstance(p, permissions.AllowAny) for p in view.get_permissions()):
            codes.append(401)
        if any(not isinstance(p, OPEN_PERMISSIONS) for p in view.get_permissions()):
            codes.append(403)
        if "{" in self.path:
            codes.append(404)
        if self.method in WRITE_METHODS:
            codes += [413, 415]
        if view.get_throttles():
            codes.append(429)
        return codes

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        for code in self.refusals():
            if str(code) not in responses:
                answer = error_response(GENERIC_REFUSALS[code])
                responses[str(code)] = self._get_response_for_code(answer, str(code), direction=direction)
        return dict(sorted(responses.items()))

    def _get_response_headers_for_code(self, status_code: Any, direction: Any = "response") -> dict[str, Any]:
        headers = dict(super()._get_response_headers_for_code(status_code, direction))
        if str(status_code) in RETRY_LATER:
            headers["Retry-After"] = {
                "schema": {"type": "integer", "minimum": 1},
                "description": "Seconds to wait before trying again.",
            }
        return headers

    def _postprocess_serializer_schema(self, schema: Any, serializer: Any, direction: Any) -> Any:
        schema = super()._postprocess_serializer_schema(schema, serializer, direction)
        strict = not getattr(serializer, "open_body", False)
        if strict and direction == "request" and isinstance(schema, dict) and schema.get("type") == "object":
            schema.setdefault("additionalProperties", False)
        return schema
