"""Shapes of the preview's answer (``POST /api/v1/projects/<project>/workloads/preview/``), for the OpenAPI schema
and the SDK's models; the values are built in ``workloads.api.preview``."""

from __future__ import annotations

from rest_framework import serializers

from base.api_schema import FieldErrorSerializer
from workloads.api.serializers import KIND_HELP, TIERS
from workloads.preview_diff import ACTIONS

VERDICTS = ["fits", "waits", "never"]
CHANGES = ["added", "removed", "changed"]


class PreviewShardSerializer(serializers.Serializer):
    cluster = serializers.CharField(help_text='a member cluster, or "(not placed)" when nothing can place it')
    zone = serializers.CharField(allow_blank=True)
    region = serializers.CharField(allow_blank=True)
    shardIndex = serializers.IntegerField()
    shardCount = serializers.IntegerField()
    replicas = serializers.IntegerField(allow_null=True, help_text="null: the spec's own count (a job, a daemon)")


class PreviewClusterSerializer(serializers.Serializer):
    name = serializers.CharField()
    zone = serializers.CharField(allow_blank=True)
    region = serializers.CharField(allow_blank=True)
    chosen = serializers.BooleanField()
    replicas = serializers.IntegerField(allow_null=True, help_text="on this cluster, when chosen")
    score = serializers.FloatField(allow_null=True, help_text="0-100, for a cluster that passed every filter")
    reasons = serializers.ListField(child=serializers.CharField(), help_text="why a filter refused it")
    healthy = serializers.BooleanField()


class PreviewPlacementSerializer(serializers.Serializer):
    shards = PreviewShardSerializer(many=True)
    clusters = PreviewClusterSerializer(many=True, help_text="every member cluster: its filter result and score")
    problem = serializers.CharField(allow_blank=True, help_text="why there are no shards, or where they come from")
    kept = serializers.BooleanField(help_text="an edit keeps its shards where they run (stickiness)")


class InjectedItemSerializer(serializers.Serializer):
    path = serializers.CharField()
    summary = serializers.CharField()


class InjectionReportSerializer(serializers.Serializer):
    added = InjectedItemSerializer(many=True, help_text="what the platform's runtime profile adds to the pods")
    kept = InjectedItemSerializer(many=True, help_text="where a value of yours wins over the platform's")


class NativeObjectSerializer(serializers.Serializer):
    kind = serializers.CharField()
    name = serializers.CharField()
    object = serializers.JSONField(help_text="the object as the member cluster gets it")
    injected = serializers.ListField(
        child=serializers.CharField(),
        help_text='the parts the platform injected, as paths into `object` ("spec.template.spec.initContainers[0]")',
    )


class ClusterObjectsSerializer(serializers.Serializer):
    cluster = serializers.CharField()
    zone = serializers.CharField(allow_blank=True)
    replicas = serializers.IntegerField(allow_null=True)
    objects = NativeObjectSerializer(many=True)
    injection = InjectionReportSerializer(allow_null=True, help_text="null for a kind that runs no pods")


class QuotaFitRowSerializer(serializers.Serializer):
    tier = serializers.ChoiceField(choices=TIERS)
    resource = serializers.ChoiceField(choices=["cpu", "memory", "gpu", "pods"])
    unit = serializers.ChoiceField(
        choices=["millicores", "bytes", "GPUs", "pods"], help_text="the unit of the four amounts"
    )
    admitted = serializers.IntegerField(help_text="held by the project's admitted workloads")
    waiting = serializers.IntegerField(help_text="asked by its workloads waiting for admission")
    this = serializers.IntegerField(help_text="what this workload would claim (0 in the other tiers)")
    granted = serializers.IntegerField(allow_null=True, help_text="the grant; null: no cap (a pod grant of 0)")
    over = serializers.BooleanField(help_text="admitted plus this is beyond the grant")
    text = serializers.DictField(
        child=serializers.CharField(), help_text="the four amounts as people read them (admitted, waiting, ...)"
    )


class QuotaFitSerializer(serializers.Serializer):
    tier = serializers.ChoiceField(choices=TIERS, help_text="the workload's tier")
    verdict = serializers.ChoiceField(
        choices=VERDICTS,
        help_text="fits the grant now; waits for admission (others hold it); never fits the whole grant",
    )
    messages = serializers.ListField(child=serializers.CharField(), help_text="the numbers, when it does not fit")
    waitingCount = serializers.IntegerField(help_text="workloads of this tier queued before it")
    rows = QuotaFitRowSerializer(many=True, help_text="every tier and resource")


class RoomNowSerializer(serializers.Serializer):
    later = serializers.ListField(
        child=serializers.CharField(),
        help_text="per chosen member (every member when none is): why no node takes one pod now (it waits: fits "
        "later), or never does; empty: a node takes it now",
    )
    largest = serializers.ListField(
        child=serializers.CharField(), help_text="the tier's largest pod that fits now, per member"
    )


class FieldChangeSerializer(serializers.Serializer):
    path = serializers.CharField()
    before = serializers.JSONField(allow_null=True, help_text="null: absent")
    after = serializers.JSONField(allow_null=True, help_text="null: absent")


class ObjectChangeSerializer(serializers.Serializer):
    key = serializers.CharField(help_text='"Deployment web-local-1a" (and "on <cluster>" with several shards)')
    change = serializers.ChoiceField(choices=CHANGES)
    changes = FieldChangeSerializer(many=True)


class PreviewDiffSerializer(serializers.Serializer):
    version = serializers.CharField(help_text="the live version")
    stale = serializers.CharField(allow_blank=True, help_text="If-Match names another version: the write's 409")
    spec = FieldChangeSerializer(many=True)
    objects = ObjectChangeSerializer(many=True, help_text="the member clusters' objects that change")


class RefusalSerializer(serializers.Serializer):
    status = serializers.IntegerField()
    code = serializers.CharField()
    message = serializers.CharField()
    fields = FieldErrorSerializer(many=True)


class PreviewNetworkPolicySerializer(serializers.Serializer):
    name = serializers.CharField()
    admits = serializers.ListField(child=serializers.CharField(), help_text="one line per source it admits")


class WorkloadPreviewSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text=KIND_HELP)
    name = serializers.CharField()
    project = serializers.CharField()
    tier = serializers.ChoiceField(choices=TIERS)
    action = serializers.ChoiceField(
        choices=list(ACTIONS),
        help_text="what applying it would do: create it, change it, or nothing (kubectl's words)",
    )
    refusal = RefusalSerializer(
        allow_null=True, help_text="what submitting would refuse (the pod security level, never fitting the grant)"
    )
    problems = serializers.ListField(child=serializers.CharField(), help_text="caches not synced, a host not answering")
    document = serializers.JSONField(help_text="the object the write would make (apiVersion, kind, metadata, spec)")
    live = serializers.JSONField(allow_null=True, help_text="the live object in the same shape; null: none")
    diff = PreviewDiffSerializer(allow_null=True, help_text="against the live object; null when there is none")
    placement = PreviewPlacementSerializer()
    clusters = ClusterObjectsSerializer(many=True, help_text="what each chosen member cluster would get")
    quota = QuotaFitSerializer()
    room = RoomNowSerializer(allow_null=True, help_text="whether a node takes its pods now; null: it runs none")
    network = PreviewNetworkPolicySerializer(
        many=True, help_text="the project's NetworkPolicies on every member; they select every pod of the project"
    )
