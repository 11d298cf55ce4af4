"""The cluster registry: where clusters are, how to reach them, what they offer, how healthy they are."""

from __future__ import annotations

from django.core.validators import RegexValidator
from django.db import models

CLUSTER_NAME = RegexValidator(
    r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$", "Use lowercase letters, digits and '-', starting with a letter."
)


class FederationRole(models.TextChoices):
    """A cluster's place in the federation: the host stores workloads, members run them."""

    HOST = "host", "Host"
    MEMBER = "member", "Member"


class PoolKind(models.TextChoices):
    RESERVED = "reserved", "Reserved pool"
    ONDEMAND = "ondemand", "OnDemand pool"
    BURST = "burst", "Burst buffer"


class ClusterQuerySet(models.QuerySet["Cluster"]):
    def members(self) -> ClusterQuerySet:
        return self.filter(role=FederationRole.MEMBER)


class Cluster(models.Model):
    name = models.CharField(max_length=63, unique=True, validators=[CLUSTER_NAME])
    region = models.CharField(max_length=63)
    zone = models.CharField(max_length=63)
    role = models.CharField(max_length=8, choices=FederationRole.choices, default=FederationRole.MEMBER)
    api_server = models.URLField(max_length=255, help_text="API endpoint (informational; credentials decide)")
    kubeconfig_path = models.CharField(
        max_length=500, blank=True, help_text="Path of a kubeconfig readable by the portal; empty = in-cluster"
    )
    kube_context = models.CharField(max_length=253, blank=True)
    in_cluster = models.BooleanField(default=False, help_text="Use the pod's service account")
    hardware_families = models.JSONField(default=list, blank=True)
    labels = models.JSONField(default=dict, blank=True)
    taints = models.JSONField(default=list, blank=True)
    schedulable = models.BooleanField(default=True)
    # maintenance (clusters.maintenance): a cordon closes it to new shards; a drain also moves what runs there
    cordoned = models.BooleanField(default=False)
    drain_requested_at = models.DateTimeField(null=True, blank=True)
    drain_jobs_deadline = models.DateTimeField(null=True, blank=True)
    # health, written by probes
    healthy = models.BooleanField(default=False)
    last_probe_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    version = models.CharField(max_length=40, blank=True)
    # a member's MemberCluster on the hosts, written by the sync tasks: why it is not there ("" once it is), since when
    host_sync_error = models.CharField(max_length=500, blank=True)
    host_sync_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ClusterQuerySet.as_manager()

    class Meta:
        ordering = ["role", "zone", "name"]

    def __str__(self) -> str:
        return self.name

    @property
    def credentials_reference(self) -> str:
        """What the UI may show about credentials: where they come from, never their content."""
        if self.in_cluster:
            return "in-cluster service account"
        return f"kubeconfig {self.kubeconfig_path} (context {self.kube_context or 'current'})"


class ClusterPool(models.Model):
    """Capacity of one tier pool on one cluster, in requests units."""

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="pools")
    kind = models.CharField(max_length=10, choices=PoolKind.choices)
    cpu_milli = models.PositiveBigIntegerField(default=0)
    memory_bytes = models.PositiveBigIntegerField(default=0)
    gpu = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["cluster", "kind"]
        constraints = [models.UniqueConstraint(fields=["cluster", "kind"], name="one_pool_per_kind")]

    def __str__(self) -> str:
        return f"{self.cluster}/{self.kind}"
