from __future__ import annotations

from rest_framework import serializers

from base.api import StrictInput
from clusters.models import Cluster, ClusterPool
from clusters.services import pool_snapshot


class PoolSerializer(serializers.ModelSerializer):
    class Meta:
        model = ClusterPool
        fields = ["kind"]

    def to_representation(self, instance: ClusterPool) -> dict:
        return {"kind": instance.kind, **pool_snapshot(instance)}


class ClusterSerializer(serializers.ModelSerializer):
    """Never exposes credentials: only where they come from (admins) or nothing (others)."""

    pools = PoolSerializer(many=True, read_only=True)

    class Meta:
        model = Cluster
        fields = [
            "name",
            "region",
            "zone",
            "role",
            "api_server",
            "hardware_families",
            "labels",
            "taints",
            "schedulable",
            "healthy",
            "last_probe_at",
            "last_error",
            "version",
            "pools",
        ]
        read_only_fields = fields


class ClusterPatchSerializer(StrictInput):
    region = serializers.CharField(required=False, max_length=63)
    zone = serializers.CharField(required=False, max_length=63)
    hardware_families = serializers.ListField(child=serializers.CharField(max_length=32), required=False)
    labels = serializers.DictField(child=serializers.CharField(max_length=63, allow_blank=True), required=False)
    taints = serializers.ListField(child=serializers.DictField(child=serializers.CharField()), required=False)
    schedulable = serializers.BooleanField(required=False)


class PoolPatchSerializer(StrictInput):
    cpu = serializers.CharField(max_length=32)
    memory = serializers.CharField(max_length=32)
    gpu = serializers.CharField(max_length=16)
