"""``/api/v1/me/`` and personal tokens over the API (create returns the secret once; delete revokes)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import generics, mixins, serializers, status, viewsets
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import services
from accounts.models import ApiToken
from base.api import StrictInput
from base.api_schema import error_response
from base.permissions import is_platform_admin


class ApiTokenSerializer(serializers.ModelSerializer):
    active = serializers.BooleanField(source="is_active", read_only=True)

    class Meta:
        model = ApiToken
        fields = ["id", "name", "key_id", "scope", "created_at", "expires_at", "last_used_at", "revoked_at", "active"]
        read_only_fields = fields


class ApiTokenCreateSerializer(StrictInput):
    name = serializers.RegexField(r"\S", max_length=80, help_text="1 to 80 characters, not only spaces")
    days = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=services.max_token_days(),
        help_text="Expiry in days (default API_TOKEN_DEFAULT_DAYS, at most API_TOKEN_MAX_DAYS)",
    )
    scope = serializers.ChoiceField(  # the model's choices: one enum in the OpenAPI schema
        choices=ApiToken._meta.get_field("scope").choices,
        default="write",
        help_text="read: safe methods and log streams only",
    )


class ApiTokenCreatedSerializer(ApiTokenSerializer):
    token = serializers.CharField(read_only=True, help_text="Shown once; store it now.")

    class Meta(ApiTokenSerializer.Meta):
        fields = [*ApiTokenSerializer.Meta.fields, "token"]
        read_only_fields = fields


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    email = serializers.EmailField()
    groups = serializers.ListField(child=serializers.CharField())
    is_platform_admin = serializers.BooleanField()


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
