"""Tenants: a Project has members (users or OIDC groups) with roles, a regional quota grant per tier,
requests for more quota, and a provisioning record per cluster."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone

from base.permissions import is_platform_admin
from pincompute.grants import Allocation
from pincompute.tiers import Tier as CoreTier

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


class ProjectState(models.TextChoices):
    ACTIVE = "active", "Active"
    ARCHIVED = "archived", "Archived"


class PodSecurity(models.TextChoices):
    """Pod Security admission level of the project's namespaces (only platform admins change it)."""

    PRIVILEGED = "privileged", "Privileged"
    BASELINE = "baseline", "Baseline"
    RESTRICTED = "restricted", "Restricted"


ROLE_RANK = {ProjectRole.VIEWER: 1, ProjectRole.DEVELOPER: 2, ProjectRole.OWNER: 3}


def memberships_of(user: Any, path: str = "") -> models.Q:
    """Memberships that apply to ``user``: their own, and those of the OIDC groups they are in. ``path`` leads from
    the queried model to the membership (``"memberships__"`` from a project, nothing from a membership)."""
    return models.Q(**{f"{path}user": user}) | models.Q(**{f"{path}group__in": user.groups.all()})


def live_roles_of(user: Any, path: str = "", roles: tuple[str, ...] | None = None) -> models.Q:
    """Time-limited grants of a role (``roles``: any) to ``user`` that have not ended: compared with the clock at
    each check, so a grant ends on time even when the expiry task did not run. ``path`` leads from the queried model
    to the grant (``"access_grants__"`` from a project)."""
    return models.Q(
        **{
            f"{path}user": user,
            f"{path}ends_at__gt": timezone.now(),
            f"{path}access__in": list(roles if roles is not None else ProjectRole.values),
        }
    )


class ProjectQuerySet(models.QuerySet["Project"]):
    def visible_to(self, user: Any) -> ProjectQuerySet:
        """The one place tenant scoping is decided: admins see all, others their (group) memberships and live
        time-limited grants."""
        if not getattr(user, "is_authenticated", False):
            return self.none()
        if is_platform_admin(user):
            return self.all()
        return self.filter(memberships_of(user, "memberships__") | live_roles_of(user, "access_grants__")).distinct()

    def for_role(self, user: Any, roles: tuple[str, ...]) -> ProjectQuerySet:
        """Projects where ``user``'s own or a group's membership, or a live time-limited grant, has one of ``roles``
        (admins: all)."""
        if not getattr(user, "is_authenticated", False):
            return self.none()
        if is_platform_admin(user):
            return self.all()
        # one filter() call: the role and the user (or group) are of the same membership
        member = memberships_of(user, "memberships__") & models.Q(memberships__role__in=roles)
        return self.filter(member | live_roles_of(user, "access_grants__", roles)).distinct()

    def active(self) -> ProjectQuerySet:
        return self.filter(state=ProjectState.ACTIVE)


class Project(models.Model):
    name = models.CharField(max_length=40, unique=True, validators=[DNS_LABEL])
    display_name = models.CharField(max_length=120, blank=True)
    team = models.CharField(max_length=80, help_text="The owning team.")
    cost_center = models.CharField(max_length=40)
    description = models.TextField(blank=True)
    state = models.CharField(max_length=10, choices=ProjectState.choices, default=ProjectState.ACTIVE)
    pod_security = models.CharField(max_length=12, choices=PodSecurity.choices, default=PodSecurity.BASELINE)
    record_shells = models.BooleanField(
        default=False, help_text="Record shell transcripts (asciicast v2) for owners and platform admins to replay."
    )
    # The ports its owners opened to named projects or to the ingress (``projects.network``); the members'
    # NetworkPolicies admit them (``pincompute.netpol``).
    network_openings = models.JSONField(default=list, blank=True)
    # Its policy, as ``pincompute.policy.policy_document`` writes it ({}: the open policy of a project onboarded
    # before policies existed); set by platform admins through ``projects.policy``.
    policy = models.JSONField(default=dict, blank=True)
    # Who to call and where its tools are (``pincompute.ownership``), set by its owners through ``projects.ownership``.
    oncall = models.CharField(max_length=200, blank=True)
    links = models.JSONField(default=list, blank=True)
    generation = models.PositiveIntegerField(
        default=1, help_text="Bumped by every change the clusters must follow (members, quota, policy, archive)."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    archived_at = models.DateTimeField(null=True, blank=True)

    objects = ProjectQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def namespace(self) -> str:
        return Project.namespace_of(self.name)

    @staticmethod
    def namespace_of(name: str) -> str:
        """The project's namespace on every cluster, from its name alone."""
        return f"proj-{name}"

    @property
    def is_active(self) -> bool:
        return self.state == ProjectState.ACTIVE

    def role_of(self, user: Any) -> str | None:
        """The highest of ``user``'s own role, their groups' roles and their live time-limited roles here; None when
        neither."""
        if not getattr(user, "is_authenticated", False):
            return None
        roles = [*self.memberships.filter(memberships_of(user)).values_list("role", flat=True)]
        roles += self.access_grants.filter(live_roles_of(user)).values_list("access", flat=True)
        ranked = sorted(roles, key=lambda r: ROLE_RANK.get(r, 0))
        return ranked[-1] if ranked else None


class Membership(models.Model):
    """A user or an OIDC group (mirrored into Django groups at sign-in) with a role in one project."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="memberships"
    )
    group = models.ForeignKey(
        "auth.Group", null=True, blank=True, on_delete=models.CASCADE, related_name="project_memberships"
    )
    role = models.CharField(max_length=16, choices=ProjectRole.choices, default=ProjectRole.DEVELOPER)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(user__isnull=False, group__isnull=True)
                | models.Q(user__isnull=True, group__isnull=False),
                name="membership_is_a_user_or_a_group",
            ),
            models.UniqueConstraint(
                fields=["project", "user"], condition=models.Q(user__isnull=False), name="one_membership_per_user"
            ),
            models.UniqueConstraint(
                fields=["project", "group"], condition=models.Q(group__isnull=False), name="one_membership_per_group"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.subject} in {self.project} as {self.role}"

    @property
    def subject(self) -> str:
        """``user:alice`` or ``group:ml-team``, as shown and as written into RoleBindings."""
        return f"user:{self.user.get_username()}" if self.user_id else f"group:{self.group.name}"


class TierQuota(models.Model):
    """A project's regional grant in one tier (requests), as federation admission counts it."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="quotas")
    tier = models.CharField(max_length=16, choices=Tier.choices)
    cpu_milli = models.PositiveBigIntegerField(default=0)
    memory_bytes = models.PositiveBigIntegerField(default=0)
    gpu = models.PositiveIntegerField(default=0)
    pods = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["project", "tier"]
        constraints = [models.UniqueConstraint(fields=["project", "tier"], name="one_quota_per_project_tier")]

    def __str__(self) -> str:
        return f"{self.project}/{self.tier}"

    @property
    def allocation(self) -> Allocation:
        """This grant as the core's value."""
        return Allocation(self.cpu_milli, self.memory_bytes, self.gpu, self.pods)


class QuotaRequestState(models.TextChoices):
    PENDING = "pending", "Pending"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    APPLIED = "applied", "Applied"


class QuotaRequest(models.Model):
    """An owner's ask for a different grant in one tier: what, why, and who decided what, when and why."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="quota_requests")
    tier = models.CharField(max_length=16, choices=Tier.choices)
    previous = models.JSONField(help_text="The grant when asked: {cpu_milli, memory_bytes, gpu, pods}.")
    requested = models.JSONField(help_text="The grant asked for, same keys.")
    reason = models.TextField(blank=True)
    state = models.CharField(max_length=10, choices=QuotaRequestState.choices, default=QuotaRequestState.PENDING)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="quota_requests"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="quota_decisions"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)
    applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["state", "created_at"], name="quota_request_queue_idx")]

    def __str__(self) -> str:
        return f"{self.project}/{self.tier} {self.state}"


class ProvisioningState(models.TextChoices):
    PENDING = "pending", "Pending"
    PROVISIONING = "provisioning", "Provisioning"
    READY = "ready", "Ready"
    FAILED = "failed", "Failed"
    REMOVING = "removing", "Removing"
    REMOVED = "removed", "Removed"


class ClusterProvisioning(models.Model):
    """How far one cluster has followed one project: the generation it last matched, and the last error."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="provisioning")
    cluster = models.ForeignKey("clusters.Cluster", on_delete=models.CASCADE, related_name="provisioning")
    state = models.CharField(max_length=12, choices=ProvisioningState.choices, default=ProvisioningState.PENDING)
    observed_generation = models.PositiveIntegerField(default=0)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["project", "cluster"]
        constraints = [
            models.UniqueConstraint(fields=["project", "cluster"], name="one_provisioning_record_per_cluster")
        ]

    def __str__(self) -> str:
        return f"{self.project} on {self.cluster}: {self.state}"


# The time-limited grants' models, registered with this app (they build on Project).
from projects.access_requests.models import AccessGrant, AccessRequest  # noqa: E402, F401


class PolicyDefaults(models.Model):
    """The policy new projects start with: one row, edited by platform admins (``projects.policy``); until the first
    edit, ``settings.PROJECT_POLICY_DEFAULTS``."""

    document = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return "policy defaults"
