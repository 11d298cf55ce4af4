"""Shapes of the Projects API. Input serializers check shape only (strings, lists, objects); the services
check the values and name every bad field at once (``quotas.reserved.gpu``, ``members[1].name``), so the
one set of messages is the services'. Quantities are Kubernetes strings both ways ("8", "500m", "32Gi").
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from base.api import StrictInput
from projects.api.fields import (
    AllocationSerializer,
    EffectiveRoleField,
    MemberKindField,
    PodSecurityField,
    ProjectRoleField,
    ProjectStateField,
    ProvisioningStateField,
    RequestStateField,
    ResourcesSerializer,
    TierField,
    quantity_field,
)
from projects.grants import QuotaInput
from projects.members import MemberInput
from projects.models import ClusterProvisioning, Membership, Project, ProjectRole, QuotaRequest
from projects.onboarding import ProjectDraft


class GrantsSerializer(serializers.Serializer):
    """The project's regional grant in each tier."""

    reserved = AllocationSerializer(read_only=True)
    ondemand = AllocationSerializer(read_only=True)
    preemptible = AllocationSerializer(read_only=True)


# --- quantities in --------------------------------------------------------------------------------------


class QuotaInputSerializer(StrictInput):
    """A grant in one tier; an omitted resource is 0."""

    cpu = quantity_field("cpu", default="0")
    memory = quantity_field("memory", default="0")
    gpu = quantity_field("gpu", default="0")
    pods = quantity_field("pods", default="0")

    @staticmethod
    def quota_input(data: dict[str, Any]) -> QuotaInput:
        return QuotaInput(**{name: data[name] for name in ("cpu", "memory", "gpu", "pods")})


class GrantInputSerializer(StrictInput):
    """The whole new grant in one tier: every resource is given (a PUT replaces the grant)."""

    cpu = quantity_field("cpu")
    memory = quantity_field("memory")
    gpu = quantity_field("gpu")
    pods = quantity_field("pods")

    def quota_input(self) -> QuotaInput:
        return QuotaInputSerializer.quota_input(self.validated_data)


class QuotaChangeInputSerializer(GrantInputSerializer):
    reason = serializers.CharField(required=False, allow_blank=True, default="", help_text="Shown to approvers.")


class ForcedDecreaseInputSerializer(GrantInputSerializer):
    reason = serializers.CharField(allow_blank=True, help_text="Required; the project's owners read it.")
    confirm = serializers.CharField(allow_blank=True, help_text="The token of the preview of this same decrease.")


# --- projects -------------------------------------------------------------------------------------------


class MemberInputSerializer(StrictInput):
    kind = MemberKindField()
    name = serializers.CharField(allow_blank=True, help_text="The username or the OIDC group's name.")
    role = ProjectRoleField(default=ProjectRole.DEVELOPER)


class ProjectCreateSerializer(StrictInput):
    """Onboarding in one body: basics, members (the caller joins as an owner unless listed or a platform
    admin) and the grant per tier (keyed ``reserved``, ``ondemand``, ``preemptible``)."""

    name = serializers.CharField(
        allow_blank=True,
        trim_whitespace=False,
        help_text="A DNS label of at most 40 characters (lowercase letters, digits, '-', starting with a letter); "
        "the namespace is proj-<name>. Never changes.",
    )
    display_name = serializers.CharField(required=False, allow_blank=True, default="", help_text="At most 120.")
    team = serializers.CharField(allow_blank=True, help_text="The owning team; at most 80 characters.")
    cost_center = serializers.CharField(allow_blank=True, help_text="At most 40 characters.")
    description = serializers.CharField(required=False, allow_blank=True, default="", help_text="At most 2000.")
    members = MemberInputSerializer(many=True, default=list)
    quotas = serializers.DictField(
        child=QuotaInputSerializer(),
        default=dict,
        help_text="Grant per tier label (reserved, ondemand, preemptible). Beyond the auto-approve limit or "
        "the region's headroom a tier becomes a pending quota request instead.",
    )

    def draft(self) -> ProjectDraft:
        data = self.validated_data
        return ProjectDraft(
            name=data["name"],
            display_name=data["display_name"],
            team=data["team"],
            cost_center=data["cost_center"],
            description=data["description"],
            members=[MemberInput(m["kind"], m["name"], m["role"]) for m in data["members"]],
            quotas={tier: QuotaInputSerializer.quota_input(q) for tier, q in data["quotas"].items()},
        )


class ProjectPatchSerializer(StrictInput):
    """Owners and platform admins edit the description fields; only platform admins the Pod Security
    level. Any other field (``name`` included) is refused by name, and so is a value that is not a string."""

    display_name = serializers.CharField(required=False, allow_blank=True)
    team = serializers.CharField(required=False, allow_blank=True)
    cost_center = serializers.CharField(required=False, allow_blank=True)
    description = serializers.CharField(required=False, allow_blank=True)
    pod_security = PodSecurityField(required=False, help_text="Platform admins only.")

    def unknown_field(self, key: str) -> str:
        return f"{key} cannot be changed here; editable: {', '.join(self.fields)}."


class ProjectSerializer(serializers.ModelSerializer):
    namespace = serializers.CharField(read_only=True)
    state = ProjectStateField(read_only=True)
    pod_security = PodSecurityField(read_only=True)
    role = EffectiveRoleField(
        read_only=True,
        help_text="The caller's effective role: the highest of their own and their groups' roles; "
        "admin for platform admins.",
    )
    grants = GrantsSerializer(read_only=True)

    class Meta:
        model = Project
        fields = [
            "name",
            "display_name",
            "team",
            "cost_center",
            "description",
            "namespace",
            "state",
            "pod_security",
            "generation",
            "created_at",
            "archived_at",
            "role",
            "grants",
        ]
        read_only_fields = fields


class QuotaRequestSerializer(serializers.ModelSerializer):
    project = serializers.CharField(source="project.name", read_only=True)
    tier = TierField(read_only=True)
    state = RequestStateField(read_only=True)
    previous = AllocationSerializer(read_only=True, help_text="The grant when asked.")
    requested = AllocationSerializer(read_only=True)
    requested_by = serializers.CharField(source="requested_by.username", read_only=True, allow_null=True)
    decided_by = serializers.CharField(source="decided_by.username", read_only=True, allow_null=True)

    class Meta:
        model = QuotaRequest
        fields = [
            "id",
            "project",
            "tier",
            "state",
            "previous",
            "requested",
            "reason",
            "requested_by",
            "created_at",
            "decided_by",
            "decided_at",
            "decision_reason",
            "applied_at",
        ]
        read_only_fields = fields


class ProjectCreatedSerializer(ProjectSerializer):
    pending_requests = QuotaRequestSerializer(
        many=True, read_only=True, help_text="Grants that wait for a platform admin."
    )

    class Meta(ProjectSerializer.Meta):
        fields = [*ProjectSerializer.Meta.fields, "pending_requests"]
        read_only_fields = fields


# --- members --------------------------------------------------------------------------------------------


class MembershipSerializer(serializers.ModelSerializer):
    kind = MemberKindField(read_only=True)
    name = serializers.CharField(read_only=True)
    role = ProjectRoleField(read_only=True)

    class Meta:
        model = Membership
        fields = ["kind", "name", "role"]
        read_only_fields = fields

    def to_representation(self, instance: Membership) -> dict[str, Any]:
        if instance.user_id:
            kind, name = "user", instance.user.get_username()
        else:
            kind, name = "group", instance.group.name
        return {"kind": kind, "name": name, "role": instance.role}


class MemberRoleSerializer(StrictInput):
    role = ProjectRoleField()


# --- quota ----------------------------------------------------------------------------------------------


class QuotaChangeSerializer(serializers.Serializer):
    applied = serializers.BooleanField(read_only=True, help_text="True: the grant is `after` now.")
    before = AllocationSerializer(read_only=True)
    after = AllocationSerializer(read_only=True)
    request = QuotaRequestSerializer(read_only=True, allow_null=True, help_text="The pending request when not applied.")


class ClusterRoomSerializer(serializers.Serializer):
    cluster = serializers.CharField(read_only=True)
    capacity = ResourcesSerializer(read_only=True, help_text="The member's pools for this tier.")
    requested = ResourcesSerializer(read_only=True, help_text="What runs there now (all projects).")
    headroom = ResourcesSerializer(read_only=True)


class RegionRoomSerializer(serializers.Serializer):
    capacity = ResourcesSerializer(read_only=True)
    granted = ResourcesSerializer(read_only=True, help_text="Every project's grants in this tier.")
    headroom = ResourcesSerializer(read_only=True, help_text="What is left to grant in this tier.")


class PendingRequestSerializer(serializers.ModelSerializer):
    requested = AllocationSerializer(read_only=True)

    class Meta:
        model = QuotaRequest
        fields = ["id", "requested", "reason", "created_at"]
        read_only_fields = fields


class TierOverviewSerializer(serializers.Serializer):
    tier = TierField(read_only=True)
    grant = AllocationSerializer(read_only=True)
    usage = AllocationSerializer(read_only=True, help_text="What the workloads request (federation admission).")
    running = AllocationSerializer(read_only=True, help_text="The running pods' requests and count.")
    headroom = AllocationSerializer(read_only=True, help_text="grant - usage; negative after a forced decrease.")
    region = RegionRoomSerializer(read_only=True)
    clusters = ClusterRoomSerializer(many=True, read_only=True)
    pending_request = PendingRequestSerializer(read_only=True, allow_null=True)


class WorkloadUseSerializer(serializers.Serializer):
    name = serializers.CharField(read_only=True)
    kind = serializers.CharField(read_only=True)
    tier = TierField(source="tier.label", read_only=True)
    requests = AllocationSerializer(source="request", read_only=True)
    clusters = serializers.ListField(
        child=serializers.CharField(), read_only=True, help_text="Where the federation placed its shards."
    )
    admitted = serializers.BooleanField(
        read_only=True, help_text="Admitted by federation admission: its requests hold the tier's grant."
    )
    waiting = serializers.CharField(read_only=True, help_text="Why it is not admitted yet (empty once admitted).")


class ProvisioningSerializer(serializers.ModelSerializer):
    cluster = serializers.CharField(source="cluster.name", read_only=True)
    state = ProvisioningStateField(read_only=True)

    class Meta:
        model = ClusterProvisioning
        fields = [
            "cluster",
            "state",
            "observed_generation",
            "attempts",
            "last_error",
            "last_attempt_at",
            "last_success_at",
        ]
        read_only_fields = fields


class QuotaOverviewSerializer(serializers.Serializer):
    project = serializers.CharField(read_only=True)
    generation = serializers.IntegerField(read_only=True, help_text="Clusters at this generation follow it.")
    tiers = TierOverviewSerializer(many=True, read_only=True)
    workloads = WorkloadUseSerializer(many=True, read_only=True)
    problems = serializers.ListField(
        child=serializers.CharField(), read_only=True, help_text="Caches not synced: usage may be incomplete."
    )
    provisioning = ProvisioningSerializer(many=True, read_only=True)


def overview_body(project: Project, overview: Any, provisioning: list[ClusterProvisioning]) -> dict[str, Any]:
    """``projects.headroom.quota_overview`` as the API shows it (dataclasses into a tree of plain values)."""
    return {
        "project": project.name,
        "generation": project.generation,
        "tiers": [
            {
                "tier": t.tier.label,
                "grant": t.grant,
                "usage": t.usage,
                "running": t.running,
                "headroom": t.grant - t.usage,
                "region": {"capacity": t.region_capacity, "granted": t.region_granted, "headroom": t.region_headroom},
                "clusters": t.clusters,
                "pending_request": t.pending,
            }
            for t in overview.tiers
        ],
        "workloads": overview.workloads,
        "problems": overview.problems,
        "provisioning": provisioning,
    }


class AffectedWorkloadSerializer(serializers.Serializer):
    name = serializers.CharField(read_only=True)
    kind = serializers.CharField(read_only=True)
    tier = TierField(source="tier.label", read_only=True)
    requests = AllocationSerializer(read_only=True)


class ForcedDecreasePreviewSerializer(serializers.Serializer):
    tier = TierField(source="tier.label", read_only=True)
    current = AllocationSerializer(read_only=True)
    new = AllocationSerializer(read_only=True)
    usage = AllocationSerializer(read_only=True)
    workloads = AffectedWorkloadSerializer(
        many=True, read_only=True, help_text="What would no longer fit (the oldest keep their place)."
    )
    consequence = serializers.CharField(read_only=True)
    problems = serializers.ListField(child=serializers.CharField(), read_only=True)
    token = serializers.CharField(read_only=True, help_text="Send it back as `confirm` to apply this decrease.")


# --- quota requests -------------------------------------------------------------------------------------


class DecisionSerializer(StrictInput):
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class RejectionSerializer(StrictInput):
    reason = serializers.CharField(allow_blank=True, help_text="Why; the project's owners read it.")
