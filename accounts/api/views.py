"""``/api/v1/me/`` and personal tokens over the API (create returns the secret once; delete revokes): thin views over
``accounts.services``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import generics, mixins, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import services
from accounts.api.serializers import (
    ApiTokenCreatedSerializer,
    ApiTokenCreateSerializer,
    ApiTokenSerializer,
    MeSerializer,
)
from accounts.models import ApiToken
from base.api_schema import error_response
from base.parsers import JSONParser
from base.permissions import is_platform_admin


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


class ApiTokenViewSet(mixins.ListModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """Your personal API tokens. Create returns the secret once; delete revokes."""

    serializer_class = ApiTokenSerializer
    parser_classes = [JSONParser]
    queryset = ApiToken.objects.none()  # narrowed per request; typed for the schema
    lookup_value_regex = r"\d+"

    def get_queryset(self) -> Any:
        return ApiToken.objects.filter(user=self.request.user)

    @extend_schema(
        request=ApiTokenCreateSerializer,
        responses={
            201: ApiTokenCreatedSerializer,
            403: error_response("the request is authenticated by a token: tokens cannot create tokens"),
            409: error_response("a token of yours has this name, or you hold the most active tokens allowed"),
        },
    )
    def create(self, request: Request) -> Response:
        payload = ApiTokenCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        token, raw = services.create_api_token(
            user=request.user,
            name=payload.validated_data["name"],
            days=payload.validated_data.get("days"),
            scope=payload.validated_data["scope"],
            via_token=request.auth if isinstance(request.auth, ApiToken) else None,
        )
        token.token = raw
        return Response(ApiTokenCreatedSerializer(token).data, status=status.HTTP_201_CREATED)

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        token = self.get_object()
        services.revoke_api_token(user=request.user, token_id=token.pk)
        return Response(status=status.HTTP_204_NO_CONTENT)
