"""The audit log over the API: platform admins only, read-only."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers, viewsets

from base.models import AuditEvent
from base.permissions import IsPlatformAdmin


class AuditEventSerializer(serializers.ModelSerializer):
    class Meta:
        model = AuditEvent
        fields = [
            "id",
            "created_at",
            "actor_name",
            "action",
            "target_kind",
            "target_name",
            "project_name",
            "cluster",
            "request_id",
            "before",
            "after",
            "summary",
        ]
        read_only_fields = fields


class AuditEventViewSet(viewsets.ReadOnlyModelViewSet):
    """The audit log. Filters: actor, action (prefix), project, cluster, target."""

    serializer_class = AuditEventSerializer
    permission_classes = [IsPlatformAdmin]

    def get_queryset(self) -> Any:
        p = self.request.query_params
        return AuditEvent.objects.filtered(
            actor=p.get("actor", ""),
            action=p.get("action", ""),
            project=p.get("project", ""),
            cluster=p.get("cluster", ""),
            target=p.get("target", ""),
        )
