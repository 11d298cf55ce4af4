from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from base.api_schema import error_response
from base.parsers import JSONParser
from base.permissions import IsPlatformAdmin
from clusters import attributes, services
from clusters.api.serializers import (
    ClusterPatchSerializer,
    ClusterSerializer,
    PoolPatchSerializer,
    PoolSerializer,
)
from clusters.models import Cluster, PoolKind

ADMINS_ONLY = error_response("platform admins only")


class ClusterViewSet(viewsets.ReadOnlyModelViewSet):
    """Member and host clusters. Reading is open to signed-in users; editing to platform admins."""

    serializer_class = ClusterSerializer
    parser_classes = [JSONParser]
    lookup_field = "name"
    queryset = Cluster.objects.prefetch_related("pools")

    @extend_schema(request=ClusterPatchSerializer, responses={200: ClusterSerializer, 403: ADMINS_ONLY})
    def partial_update(self, request: Request, name: str) -> Response:
        self.permission_denied_unless_admin(request)
        cluster = self.get_object()
        payload = ClusterPatchSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        changes: dict[str, Any] = dict(payload.validated_data)
        cluster = services.update_cluster_attributes(cluster.pk, changes, actor=request.user)
        return Response(ClusterSerializer(cluster, context={"request": request}).data)

    @extend_schema(
        parameters=[OpenApiParameter("kind", str, OpenApiParameter.PATH, enum=PoolKind.values)],
        request=PoolPatchSerializer,
        responses={200: PoolSerializer, 403: ADMINS_ONLY},
    )
    @action(detail=True, methods=["put"], url_path=r"pools/(?P<kind>[^/]+)")
    def pool(self, request: Request, name: str, kind: str) -> Response:
        self.permission_denied_unless_admin(request)
        cluster = self.get_object()
        payload = PoolPatchSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        pool = services.update_pool(
            cluster.pk, kind, attributes.PoolInput(**payload.validated_data), actor=request.user
        )
        return Response(PoolSerializer(pool).data)

    def permission_denied_unless_admin(self, request: Request) -> None:
        if not IsPlatformAdmin().has_permission(request, self):
            self.permission_denied(request, message=IsPlatformAdmin.message)
