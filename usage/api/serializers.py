"""The chargeback API's bodies, as the OpenAPI schema states them (responses are built by ``usage.queries``)."""

from __future__ import annotations

from rest_framework import serializers

from base.api import StrictInput


class CostWindowSerializer(serializers.Serializer):
    start = serializers.DateTimeField()
    end = serializers.DateTimeField()


class CostAllocationSerializer(serializers.Serializer):
    name = serializers.CharField(help_text='the aggregate\'s values joined by "/"; "__idle__" for idle capacity')
    properties = serializers.DictField(child=serializers.CharField(allow_blank=True))
    cpu_core_hours = serializers.FloatField(help_text="billed by use: max(request, use) per container and minute")
    cpu_request_core_hours = serializers.FloatField()
    ram_gib_hours = serializers.FloatField()
    ram_request_gib_hours = serializers.FloatField()
    gpu_hours = serializers.FloatField()
    gpu_request_hours = serializers.FloatField()
    cpu_cost = serializers.FloatField()
    ram_cost = serializers.FloatField()
    gpu_cost = serializers.FloatField()
    total_cost = serializers.FloatField(help_text="by use: the billed amounts x the tier's prices")
    cpu_use_core_hours = serializers.FloatField(help_text="used; a container not scraped counts its request")
    ram_use_gib_hours = serializers.FloatField()
    cpu_request_cost = serializers.FloatField()
    ram_request_cost = serializers.FloatField()
    gpu_request_cost = serializers.FloatField()
    total_request_cost = serializers.FloatField(help_text="by request: the requested amounts x the tier's prices")
    over_request_cost = serializers.FloatField(help_text="total_cost - total_request_cost: use above requests")


class PoolCostSerializer(serializers.Serializer):
    cluster = serializers.CharField()
    tier = serializers.CharField(help_text="the pool's tier (Preemptible: the burst pool), whose prices it costs")
    capacity_cost = serializers.FloatField()
    allocated_cost_by_request = serializers.FloatField()
    idle_cost_by_request = serializers.FloatField(help_text="capacity no running request took")
    allocated_cost_by_use = serializers.FloatField()
    idle_cost_by_use = serializers.FloatField(help_text="capacity neither requested nor used beyond requests")


class CostStepSerializer(serializers.Serializer):
    start = serializers.DateTimeField()
    end = serializers.DateTimeField()
    total_cost = serializers.FloatField()
    total_request_cost = serializers.FloatField()
    allocations = CostAllocationSerializer(many=True)


class CostReportSerializer(serializers.Serializer):
    window = CostWindowSerializer()
    step_seconds = serializers.IntegerField()
    aggregate = serializers.ListField(child=serializers.CharField())
    currency = serializers.CharField()
    total_cost = serializers.FloatField()
    total_request_cost = serializers.FloatField()
    totals = CostAllocationSerializer(many=True, help_text="each aggregate over the whole window")
    steps = CostStepSerializer(many=True)
    pools = PoolCostSerializer(many=True, help_text="platform admins: idle cost per member pool (others: empty)")


class PriceSerializer(serializers.Serializer):
    tier = serializers.CharField()
    resource = serializers.CharField()
    unit = serializers.CharField(help_text="core-hour, GiB-hour or GPU-hour")
    per_hour = serializers.DecimalField(max_digits=12, decimal_places=6, coerce_to_string=True)
    updated_at = serializers.DateTimeField(allow_null=True)
    updated_by = serializers.CharField(allow_blank=True)


class PriceInputSerializer(StrictInput):
    cpu = serializers.CharField(required=False, help_text="per core-hour, e.g. 0.04")
    memory = serializers.CharField(required=False, help_text="per GiB-hour")
    gpu = serializers.CharField(required=False, help_text="per GPU-hour")


class CapacityPointSerializer(serializers.Serializer):
    start = serializers.DateTimeField()
    tier = serializers.CharField()
    sampled_seconds = serializers.IntegerField()
    capacity_cores = serializers.FloatField()
    capacity_gib = serializers.FloatField()
    capacity_gpus = serializers.FloatField()
    allocated_cores = serializers.FloatField()
    allocated_gib = serializers.FloatField()
    allocated_gpus = serializers.FloatField()
    idle_cores = serializers.FloatField()
    idle_gib = serializers.FloatField()
    idle_gpus = serializers.FloatField()


class ForecastSerializer(serializers.Serializer):
    tier = serializers.CharField()
    unit = serializers.ChoiceField(choices=["cores", "gib", "gpus"])
    capacity = serializers.FloatField(help_text="the pool's latest capacity")
    allocated = serializers.FloatField(help_text="the trend line's value at the latest hour")
    slope_per_day = serializers.FloatField(help_text="least-squares slope of the hourly allocation, per day")
    residual = serializers.FloatField(help_text="the fit's error: root mean square of the residuals")
    days_to_full = serializers.FloatField(allow_null=True, help_text="null: not filling at this rate")
    sentence = serializers.CharField()


class CapacitySerializer(serializers.Serializer):
    cluster = serializers.CharField()
    window = CostWindowSerializer()
    points = CapacityPointSerializer(many=True)
    forecasts = ForecastSerializer(many=True, help_text="per tier and resource, a linear trend (docs/usage.md)")
