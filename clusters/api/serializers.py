from __future__ import annotations

from typing import Any

from rest_framework import serializers

from base.api import StrictInput
from base.permissions import is_platform_admin
from clusters.attributes import pool_snapshot
from clusters.models import Cluster, ClusterPool


class PoolSerializer(serializers.ModelSerializer):
    class Meta:
        model = ClusterPool
        fields = ["kind"]

    def to_representation(self, instance: ClusterPool) -> dict:
        return {"kind": instance.kind, **pool_snapshot(instance)}


ADMIN_ONLY_FIELDS = ("api_server", "last_error", "version")


class ClusterSerializer(serializers.ModelSerializer):
    """Never exposes credentials. The apiserver's address, its last error and version are internals: platform admins
    see them, everyone else gets null (the cluster's placement attributes and health stay visible to all)."""

    pools = PoolSerializer(many=True, read_only=True)
    api_server = serializers.CharField(read_only=True, allow_null=True, help_text="Platform admins only (else null)")
    last_error = serializers.CharField(read_only=True, allow_null=True, help_text="Platform admins only (else null)")
    version = serializers.CharField(read_only=True, allow_null=True, help_text="Platform admins only (else null)")

    def to_representation(self, instance: Cluster) -> dict[str, Any]:
        data = super().to_representation(instance)
        request = self.context.get("request")
        if request is None or not is_platform_admin(request.user):
            data.update(dict.fromkeys(ADMIN_ONLY_FIELDS))
        return data

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
            "cordoned",
            "drain_requested_at",
            "drain_jobs_deadline",
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


class DrainSerializer(StrictInput):
    jobs_deadline_seconds = serializers.IntegerField(
        required=False, help_text="How long a job may finish on the member before it moves (default 600)."
    )


class NodeCordonSerializer(StrictInput):
    node = serializers.CharField(max_length=253, help_text="The node's name on this member.")


class NodeResultSerializer(serializers.Serializer):
    cluster = serializers.CharField()
    node = serializers.CharField()
    unschedulable = serializers.BooleanField()
    evicted = serializers.ListField(child=serializers.CharField(), help_text="drain: pods evicted (namespace/name)")
    refused = serializers.DictField(
        child=serializers.CharField(), help_text="drain: pods a disruption budget kept, with the apiserver's reason"
    )
    kept = serializers.DictField(
        child=serializers.CharField(), help_text="drain: pods left in place (DaemonSet, mirror pods), with why"
    )


class DrainProgressSerializer(serializers.Serializer):
    cordoned = serializers.BooleanField()
    draining = serializers.BooleanField()
    done = serializers.BooleanField(help_text="Drained: nothing placed on the member and no move in flight.")
    placed = serializers.ListField(child=serializers.CharField(), help_text="kind/namespace/name still placed there")
    moving = serializers.ListField(child=serializers.CharField(), help_text="Moved off, the old shard not gone yet")
    finished = serializers.ListField(
        child=serializers.CharField(),
        help_text="Jobs that succeeded there: kept as records, not run again elsewhere; they do not hold the drain",
    )


class PoolPatchSerializer(StrictInput):
    cpu = serializers.CharField(max_length=32)
    memory = serializers.CharField(max_length=32)
    gpu = serializers.CharField(max_length=16)
