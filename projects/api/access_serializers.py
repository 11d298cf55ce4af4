"""Bodies of the time-limited access API (shape only: ``projects.access_requests.services`` judges the values)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from rest_framework import serializers

from base.api import StrictInput
from projects.access_requests.models import Access, AccessGrant, AccessRequest

ACCESS_HELP = f"One of {', '.join(Access.values)}."
DURATION_HELP = "Seconds, at most ACCESS_GRANT_MAX_SECONDS (7 days by default), at least ACCESS_GRANT_MIN_SECONDS."


class AccessRequestInputSerializer(StrictInput):
    access = serializers.CharField(help_text=ACCESS_HELP)
    duration_seconds = serializers.IntegerField(help_text=DURATION_HELP)
    reason = serializers.CharField(allow_blank=True, help_text="Why; the approvers read it.")


class AccessGrantInputSerializer(AccessRequestInputSerializer):
    user = serializers.CharField(help_text="The username to grant the access to.")


class AccessDecisionSerializer(StrictInput):
    reason = serializers.CharField(required=False, allow_blank=True, default="", help_text="Why (optional).")


class AccessRequestSerializer(serializers.ModelSerializer):
    project = serializers.CharField(source="project.name", read_only=True)
    user = serializers.CharField(source="requested_by.username", read_only=True)
    decided_by = serializers.SerializerMethodField()
    grant = serializers.SerializerMethodField()

    class Meta:
        model = AccessRequest
        fields = [
            "id",
            "project",
            "user",
            "access",
            "duration_seconds",
            "reason",
            "state",
            "created_at",
            "decided_by",
            "decided_at",
            "decision_reason",
            "grant",
        ]
        read_only_fields = fields

    def get_decided_by(self, row: AccessRequest) -> str | None:
        return row.decided_by.get_username() if row.decided_by is not None else None

    def get_grant(self, row: AccessRequest) -> int | None:
        grant: Any = getattr(row, "grant", None)
        return grant.pk if grant is not None else None


class AccessGrantSerializer(serializers.ModelSerializer):
    project = serializers.CharField(source="project.name", read_only=True)
    user = serializers.CharField(source="user.username", read_only=True)
    granted_by = serializers.SerializerMethodField()
    request = serializers.PrimaryKeyRelatedField(read_only=True)
    seconds_left = serializers.SerializerMethodField()

    class Meta:
        model = AccessGrant
        fields = [
            "id",
            "project",
            "user",
            "access",
            "reason",
            "granted_by",
            "request",
            "starts_at",
            "ends_at",
            "seconds_left",
            "end",
        ]
        read_only_fields = fields

    def get_granted_by(self, row: AccessGrant) -> str | None:
        return row.granted_by.get_username() if row.granted_by is not None else None

    def get_seconds_left(self, row: AccessGrant) -> int:
        return max(0, int((row.ends_at - timezone.now()).total_seconds()))
