from __future__ import annotations

from rest_framework import serializers

from console.models import ApiToken, AuditEvent


class AuditEventSerializer(serializers.ModelSerializer):
    class Meta:
        model = AuditEvent
        fields = ["id", "created_at", "actor_name", "action", "target_kind", "target_name", "project_name",
                  "cluster", "request_id", "before", "after", "summary"]
        read_only_fields = fields


class ApiTokenSerializer(serializers.ModelSerializer):
    active = serializers.BooleanField(source="is_active", read_only=True)

    class Meta:
        model = ApiToken
        fields = ["id", "name", "key_id", "created_at", "expires_at", "last_used_at", "revoked_at", "active"]
        read_only_fields = fields


class ApiTokenCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=80)
    days = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=365)


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
