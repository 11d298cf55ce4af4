"""The one JSON error body (``base.api``) as a serializer, for the OpenAPI description of refusals."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class FieldErrorSerializer(serializers.Serializer):
    path = serializers.CharField(allow_blank=True, help_text='the field, e.g. "spec.template.containers[0].image"')
    message = serializers.CharField()


class ErrorSerializer(serializers.Serializer):
    status = serializers.IntegerField()
    code = serializers.CharField()
    message = serializers.CharField(allow_blank=True)
    fields = FieldErrorSerializer(many=True)
    request_id = serializers.CharField(allow_blank=True, allow_null=True)


class ErrorBodySerializer(serializers.Serializer):
    error = ErrorSerializer()


def error_response(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorBodySerializer, description=description)
