"""The use API's bodies, as the OpenAPI schema states them (built by ``usage.use``)."""

from __future__ import annotations

from rest_framework import serializers


class UseRowSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="the container (pod/container), pod, workload (Kind/name) or project")
    project = serializers.CharField()
    cluster = serializers.CharField(allow_blank=True)
    workload = serializers.CharField(allow_blank=True)
    pod = serializers.CharField(allow_blank=True)
    container = serializers.CharField(allow_blank=True)
    tier = serializers.CharField(allow_blank=True, help_text='"mixed" when a sum spans tiers')
    containers = serializers.IntegerField()
    measured = serializers.BooleanField(help_text="false: Prometheus has not scraped every container yet (use null)")
    cpu_use = serializers.FloatField(allow_null=True, help_text="cores (rate of container_cpu_usage_seconds_total)")
    cpu_request = serializers.FloatField()
    cpu_limit = serializers.FloatField(allow_null=True, help_text="null: some container has no limit")
    cpu_waste = serializers.FloatField(help_text="cores requested and not used")
    memory_use = serializers.FloatField(allow_null=True, help_text="bytes (container_memory_working_set_bytes)")
    memory_request = serializers.FloatField()
    memory_limit = serializers.FloatField(allow_null=True)
    memory_waste = serializers.FloatField(help_text="bytes requested and not used")
    memory_use_gib = serializers.FloatField(allow_null=True)
    memory_request_gib = serializers.FloatField(allow_null=True)
    memory_limit_gib = serializers.FloatField(allow_null=True)
    memory_waste_gib = serializers.FloatField(allow_null=True)
    waste_cost = serializers.DecimalField(max_digits=20, decimal_places=6, help_text="per hour, at the tier's prices")


class UseReportSerializer(serializers.Serializer):
    level = serializers.ChoiceField(choices=["container", "pod", "workload", "project"])
    sort = serializers.CharField()
    scrape_seconds = serializers.IntegerField(help_text="answers are at most one scrape interval old")
    currency = serializers.CharField()
    total = UseRowSerializer()
    rows = UseRowSerializer(many=True)
