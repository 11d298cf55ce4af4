"""Shapes of the workload API's bodies (for validation and the OpenAPI schema); the values are built in
``workloads.api.representation``."""

from __future__ import annotations

from rest_framework import serializers

from workloads.core.kinds import KINDS
from workloads.core.tiers import Tier
from workloads.operations import MAX_REPLICAS
from workloads.reads import STATUSES

STATES = [value for value, _, _ in STATUSES]
KIND_HELP = f"one of {', '.join(KINDS)}"


class AdmissionSerializer(serializers.Serializer):
    admitted = serializers.BooleanField(allow_null=True, help_text="null: no verdict yet")
    reason = serializers.CharField(allow_blank=True)
    message = serializers.CharField(allow_blank=True)


class ConditionSerializer(serializers.Serializer):
    type = serializers.CharField()
    status = serializers.CharField(allow_blank=True)
    reason = serializers.CharField(allow_blank=True)
    message = serializers.CharField(allow_blank=True)
    lastTransitionTime = serializers.CharField(allow_blank=True)


class StatusSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=STATES, help_text="the list's status filter value")
    reason = serializers.CharField(allow_blank=True, help_text="why it waits or what is wrong")
    phase = serializers.CharField(allow_blank=True)
    ready = serializers.IntegerField()
    desired = serializers.IntegerField(allow_null=True)
    clusters = serializers.ListField(child=serializers.CharField(), help_text="where it is placed")
    conditions = ConditionSerializer(many=True)


class ShardSerializer(serializers.Serializer):
    cluster = serializers.CharField()
    zone = serializers.CharField(allow_blank=True)
    replicas = serializers.IntegerField()
    ready = serializers.IntegerField()
    state = serializers.CharField()
    message = serializers.CharField(allow_blank=True)
    lastSeen = serializers.CharField(allow_null=True)
    unreachableSince = serializers.CharField(allow_null=True)


class WorkloadSerializer(serializers.Serializer):
    apiVersion = serializers.CharField()
    kind = serializers.CharField(help_text=KIND_HELP)
    name = serializers.CharField()
    project = serializers.CharField()
    tier = serializers.CharField()
    labels = serializers.DictField(child=serializers.CharField(allow_blank=True))
    annotations = serializers.DictField(child=serializers.CharField(allow_blank=True))
    spec = serializers.JSONField()
    version = serializers.CharField(
        help_text="the version (a change of the spec moves it); also the ETag. Send it as If-Match to write"
    )
    admission = AdmissionSerializer()
    status = StatusSerializer()
    shards = ShardSerializer(many=True)
    createdAt = serializers.CharField(allow_null=True)
    deleting = serializers.BooleanField()


class WorkloadPageSerializer(serializers.Serializer):
    next = serializers.CharField(allow_null=True, help_text="the URL of the next page; null on the last")
    problems = serializers.ListField(child=serializers.CharField(), help_text="caches not synced, a missing host")
    results = WorkloadSerializer(many=True)


class DocumentSerializer(serializers.Serializer):
    """A workload document as kubectl would take it (the schema's view; the services validate it)."""

    apiVersion = serializers.CharField(required=False)
    kind = serializers.CharField(help_text=KIND_HELP)
    metadata = serializers.JSONField()
    spec = serializers.JSONField()


class PatchSerializer(serializers.Serializer):
    """A JSON merge patch (RFC 7386) of the document: ``null`` removes a key."""

    metadata = serializers.JSONField(required=False)
    spec = serializers.JSONField(required=False)


class ScaleSerializer(serializers.Serializer):
    replicas = serializers.IntegerField(min_value=0, max_value=MAX_REPLICAS)


class RestartContainerSerializer(serializers.Serializer):
    container = serializers.CharField()
    pod = serializers.CharField(required=False, allow_blank=True, default="", help_text="one pod; all when empty")


class WorkloadRefSerializer(serializers.Serializer):
    kind = serializers.CharField()
    name = serializers.CharField()


class EntrySerializer(serializers.Serializer):
    at = serializers.CharField(help_text="RFC 3339")
    source = serializers.CharField(help_text='"host" or a member cluster')
    category = serializers.ChoiceField(choices=["state", "event", "revision"])
    level = serializers.ChoiceField(choices=["normal", "warning"])
    title = serializers.CharField(allow_blank=True)
    message = serializers.CharField(allow_blank=True)
    subject = serializers.CharField(allow_blank=True, help_text='the involved object, e.g. "Pod web-abc"')
    count = serializers.IntegerField()
    workload = WorkloadRefSerializer(required=False, help_text="on a project's timeline")


class TimelineSerializer(serializers.Serializer):
    results = EntrySerializer(many=True)
    truncated = serializers.BooleanField(help_text="more entries match than the limit")


TIERS = [t.value for t in Tier]
