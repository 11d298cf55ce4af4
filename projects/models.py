"""Tenants: a Project has members with roles and a quota per tier per member cluster."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

from base.permissions import is_platform_admin
from workloads.core.tiers import Tier as CoreTier

DNS_LABEL = RegexValidator(
    r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$", "Use lowercase letters, digits and '-', starting with a letter (max 63)."
)


class Tier(models.TextChoices):
    """Stored as the core tier's label, shown as its name (``ondemand`` / ``OnDemand``)."""

    RESERVED = CoreTier.RESERVED.label, CoreTier.RESERVED.value
    ONDEMAND = CoreTier.ONDEMAND.label, CoreTier.ONDEMAND.value
    PREEMPTIBLE = CoreTier.PREEMPTIBLE.label, CoreTier.PREEMPTIBLE.value


class ProjectRole(models.TextChoices):
    """A member's role in one project."""

    OWNER = "owner", "Owner"
    DEVELOPER = "developer", "Developer"
    VIEWER = "viewer", "Viewer"


class ProjectQuerySet(models.QuerySet["Project"]):
    def visible_to(self, user: Any) -> ProjectQuerySet:
        """The one place tenant scoping is decided: admins see all, others their memberships."""
        if not getattr(user, "is_authenticated", False):
            return self.none()
        if is_platform_admin(user):
            return self.all()
        return self.filter(memberships__user=user).distinct()

    def for_role(self, user: Any, roles: tuple[str, ...]) -> ProjectQuerySet:
        if is_platform_admin(user):
            return self.all()
        if not getattr(user, "is_authenticated", False):
            return self.none()
        return self.filter(memberships__user=user, memberships__role__in=roles).distinct()


class Project(models.Model):
    name = models.CharField(max_length=40, unique=True, validators=[DNS_LABEL])
    display_name = models.CharField(max_length=120, blank=True)
    team = models.CharField(max_length=80)
    cost_center = models.CharField(max_length=40)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ProjectQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def namespace(self) -> str:
        return f"proj-{self.name}"


class Membership(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=ProjectRole.choices, default=ProjectRole.DEVELOPER)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="one_membership_per_user")]

    def __str__(self) -> str:
        return f"{self.user} in {self.project} as {self.role}"


class TierQuota(models.Model):
    """Granted quota of one project, in one tier, on one member cluster (requests)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="quotas")
    cluster = models.ForeignKey("clusters.Cluster", on_delete=models.CASCADE, related_name="quotas")
    tier = models.CharField(max_length=16, choices=Tier.choices)
    cpu_milli = models.PositiveBigIntegerField(default=0)
    memory_bytes = models.PositiveBigIntegerField(default=0)
    gpu = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "cluster", "tier"], name="one_quota_per_project_cluster_tier")
        ]

    def __str__(self) -> str:
        return f"{self.project}/{self.cluster}/{self.tier}"
