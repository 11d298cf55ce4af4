"""API root, whoami, audit (platform admins, read-only) and personal tokens."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import generics, mixins, status, viewsets
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from console import services
from console.api.errors import ApiFieldErrors
from console.api.serializers import (
    ApiTokenCreatedSerializer,
    ApiTokenCreateSerializer,
    ApiTokenSerializer,
    AuditEventSerializer,
    MeSerializer,
)
from console.models import ApiToken, AuditEvent
from console.permissions import IsPlatformAdmin, is_platform_admin


class ApiRootView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        def link(name: str) -> str:
            return reverse(name, request=request)

        return Response({
            "version": "v1",
            "me": link("api:me"),
            "tokens": link("api:token-list"),
            "audit": link("api:audit-list"),
            "clusters": link("api:cluster-list"),
            "schema": link("api-schema"),
            "docs": link("api-docs"),
        })


class MeView(generics.GenericAPIView):
    serializer_class = MeSerializer

    def get(self, request: Request) -> Response:
        user = request.user
        data = {
            "username": user.get_username(),
            "email": user.email,
            "groups": sorted(user.groups.values_list("name", flat=True)),
            "is_platform_admin": is_platform_admin(user),
        }
        return Response(MeSerializer(data).data)


class AuditEventViewSet(viewsets.ReadOnlyModelViewSet):
    """The audit log. Filters: actor, action (prefix), project, cluster, target."""

    serializer_class = AuditEventSerializer
    permission_classes = [IsPlatformAdmin]

    def get_queryset(self) -> Any:
        p = self.request.query_params
        return AuditEvent.objects.filtered(
            actor=p.get("actor", ""), action=p.get("action", ""), project=p.get("project", ""),
            cluster=p.get("cluster", ""), target=p.get("target", ""),
        )


class ApiTokenViewSet(mixins.ListModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """Your personal API tokens. Create returns the secret once; delete revokes."""

    serializer_class = ApiTokenSerializer
    queryset = ApiToken.objects.none()  # narrowed per request; typed for the schema
    lookup_value_regex = r"\d+"

    def get_queryset(self) -> Any:
        return ApiToken.objects.filter(user=self.request.user)

    @extend_schema(request=ApiTokenCreateSerializer, responses={201: ApiTokenCreatedSerializer})
    def create(self, request: Request) -> Response:
        payload = ApiTokenCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        try:
            token, raw = services.create_api_token(
                user=request.user, name=payload.validated_data["name"], days=payload.validated_data.get("days")
            )
        except services.TokenError as exc:
            raise ApiFieldErrors([{"path": exc.field, "message": exc.message}], exc.message) from exc
        token.token = raw
        return Response(ApiTokenCreatedSerializer(token).data, status=status.HTTP_201_CREATED)

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        token = self.get_object()
        services.revoke_api_token(user=request.user, token_id=token.pk)
        return Response(status=status.HTTP_204_NO_CONTENT)
