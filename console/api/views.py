"""The API root: links to every collection of the Compute API."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView


class ApiRootView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        def link(name: str) -> str:
            return reverse(name, request=request)

        return Response(
            {
                "version": "v1",
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
