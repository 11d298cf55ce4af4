"""The recommendations API's body, as the OpenAPI schema states it (built by ``rightsizing.api.views.body``)."""

from __future__ import annotations

from rest_framework import serializers

from rightsizing.model import CONFIDENCE_DAYS


class RecommendationSerializer(serializers.Serializer):
    cpu = serializers.CharField(help_text="the recommended CPU request, a Kubernetes quantity (e.g. 120m)")
    memory = serializers.CharField(help_text="the recommended memory request (e.g. 116Mi)")
    cpu_millicores = serializers.IntegerField()
    memory_bytes = serializers.IntegerField()
    confidence = serializers.ChoiceField(
        choices=[level for level, _ in CONFIDENCE_DAYS] + ["high"],
        help_text="low: under a day of history; medium: under a week; high",
    )
    history_days = serializers.FloatField(help_text="how much of the window has samples of the container")
    capped = serializers.ListField(child=serializers.ChoiceField(choices=["cpu", "memory"]),
                                   help_text="resources held at the container's limit")  # fmt: skip


class ContainerAdviceSerializer(serializers.Serializer):
    container = serializers.CharField()
    cpu_request = serializers.CharField(allow_null=True, help_text="as the spec says it; null: none")
    memory_request = serializers.CharField(allow_null=True)
    cpu_limit = serializers.CharField(allow_null=True)
    memory_limit = serializers.CharField(allow_null=True)
    cpu_use = serializers.FloatField(allow_null=True, help_text="cores: the 90th percentile of its rate in the window")
    memory_use = serializers.FloatField(allow_null=True, help_text="bytes: the peak working set in the window")
    recommendation = RecommendationSerializer(allow_null=True, help_text="null: no use in the window (see note)")
    cpu_saving = serializers.FloatField(allow_null=True, help_text="cores over the running pods; negative: more")
    memory_saving_gib = serializers.FloatField(allow_null=True)
    money_saving = serializers.DecimalField(max_digits=20, decimal_places=2, allow_null=True,
                                            help_text="per month (730 hours) at the tier's prices")  # fmt: skip
    note = serializers.CharField(allow_blank=True)


class AdviceSerializer(serializers.Serializer):
    project = serializers.CharField()
    kind = serializers.CharField()
    name = serializers.CharField()
    version = serializers.CharField(help_text="the workload's version the advice was read at (an apply's If-Match)")
    window = serializers.CharField()
    tier = serializers.CharField()
    pods = serializers.IntegerField(help_text="running pods now: each saves what its containers' rows say")
    currency = serializers.CharField()
    containers = ContainerAdviceSerializer(many=True)
    document = serializers.DictField(
        allow_null=True,
        help_text="the workload's document with the recommended requests: preview it (workloads/preview/), then PUT "
        "it; null: nothing to apply",
    )
