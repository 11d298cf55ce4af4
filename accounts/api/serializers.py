"""The bodies of ``/api/v1/me/`` and ``/api/v1/tokens/``."""

from __future__ import annotations

from rest_framework import serializers

from accounts import services
from accounts.models import ApiToken
from base.api import StrictInput


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
