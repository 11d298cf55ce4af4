"""The API root (links to every collection of the Compute API) and the portal's version."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from base.api_schema import error_response
from base.throttling import api_throttles
from console.version import API_VERSION, VERSION


class ApiRootView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        def link(name: str) -> str:
            return reverse(name, request=request)

        return Response(
            {
                "version": API_VERSION,
                "me": link("api:me"),
                "tokens": link("api:token-list"),
                "audit": link("api:audit-list"),
                "clusters": link("api:cluster-list"),
                "projects": link("api:project-list"),
                "quota_requests": link("api:quota-request-list"),
                "workloads": link("api:workload-list"),
                "schema": link("api-schema"),
                "docs": link("api-docs"),
            }
        )


class VersionSerializer(serializers.Serializer):
    version = serializers.CharField(help_text="the portal's version (what `pincompute version` shows as the server's)")
    api = serializers.CharField(help_text="the API's version: the path's /api/<api>/")


class VersionView(APIView):
    throttle_classes = api_throttles()

    @extend_schema(
        operation_id="version_retrieve",
        responses={
            200: VersionSerializer,
            401: error_response("no session or token"),
            429: error_response("over the per-user rate (Retry-After)"),
        },
        description="The portal's version and the API's.",
        tags=["version"],
    )
    def get(self, request: Request) -> Response:
        return Response(VersionSerializer({"version": VERSION, "api": API_VERSION}).data)
