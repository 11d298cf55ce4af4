from __future__ import annotations

from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from base.api_schema import error_response
from base.parsers import JSONParser
from base.permissions import IsPlatformAdmin
from clusters import attributes, maintenance, services
from clusters.api.serializers import (
    ClusterPatchSerializer,
    ClusterSerializer,
    DrainProgressSerializer,
    DrainSerializer,
    NodeCordonSerializer,
    NodeResultSerializer,
    PoolPatchSerializer,
    PoolSerializer,
)
from clusters.models import Cluster, PoolKind

ADMINS_ONLY = error_response("platform admins only")
NOT_FOUND = error_response("no such cluster, or no such node on it")


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

    @extend_schema(request=None, responses={200: ClusterSerializer, 403: ADMINS_ONLY})
    @action(detail=True, methods=["post"])
    def cordon(self, request: Request, name: str) -> Response:
        """Close the member to new shards; what runs there stays."""
        self.permission_denied_unless_admin(request)
        cluster = maintenance.cordon_cluster(self.get_object().pk, actor=request.user)
        return Response(ClusterSerializer(cluster, context={"request": request}).data)

    @extend_schema(request=DrainSerializer, responses={200: ClusterSerializer, 403: ADMINS_ONLY})
    @action(detail=True, methods=["post"])
    def drain(self, request: Request, name: str) -> Response:
        """Cordon the member and move its workloads off (jobs at the deadline)."""
        self.permission_denied_unless_admin(request)
        cluster = self.get_object()
        payload = DrainSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        seconds = payload.validated_data.get("jobs_deadline_seconds", maintenance.DEFAULT_JOBS_DEADLINE_SECONDS)
        cluster = maintenance.drain_cluster(cluster.pk, jobs_deadline_seconds=seconds, actor=request.user)
        return Response(ClusterSerializer(cluster, context={"request": request}).data)

    @extend_schema(request=None, responses={200: ClusterSerializer, 403: ADMINS_ONLY})
    @action(detail=True, methods=["post"])
    def uncordon(self, request: Request, name: str) -> Response:
        """Return the member to service: cordon and drain lifted."""
        self.permission_denied_unless_admin(request)
        cluster = maintenance.uncordon_cluster(self.get_object().pk, actor=request.user)
        return Response(ClusterSerializer(cluster, context={"request": request}).data)

    @extend_schema(responses={200: DrainProgressSerializer, 403: ADMINS_ONLY})
    @action(detail=True, methods=["get"])
    def maintenance(self, request: Request, name: str) -> Response:
        """What the host still places on the member, and what is moving off it."""
        self.permission_denied_unless_admin(request)
        progress = maintenance.drain_progress(self.get_object())
        return Response({**asdict(progress), "done": progress.done})

    @extend_schema(
        parameters=[OpenApiParameter("verb", str, OpenApiParameter.PATH, enum=["cordon", "uncordon", "drain"])],
        request=NodeCordonSerializer,
        responses={200: NodeResultSerializer, 403: ADMINS_ONLY, 404: NOT_FOUND},
    )
    @action(detail=True, methods=["post"], url_path=r"nodes/(?P<verb>cordon|uncordon|drain)")
    def node(self, request: Request, name: str, verb: str) -> Response:
        """Cordon or uncordon one node of the member (``kubectl cordon``), or drain it: cordon, then evict its pods
        through the Eviction API (disruption budgets hold; DaemonSet and mirror pods stay), as ``kubectl drain``."""
        self.permission_denied_unless_admin(request)
        cluster = self.get_object()
        payload = NodeCordonSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        node = payload.validated_data["node"]
        if verb == "drain":
            result = maintenance.drain_node(cluster.pk, node, actor=request.user)
        else:
            result = maintenance.cordon_node(cluster.pk, node, unschedulable=verb == "cordon", actor=request.user)
        return Response(asdict(result))

    def permission_denied_unless_admin(self, request: Request) -> None:
        if not IsPlatformAdmin().has_permission(request, self):
            self.permission_denied(request, message=IsPlatformAdmin.message)
