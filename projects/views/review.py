"""Read models of the onboarding wizard: what will be created on every cluster for a draft (nothing saved
yet), whether each tier's grant applies at once or waits for approval, and the room left per tier.

The manifests come from the core's pure builders (``pincompute.tenancy``), the same ones provisioning
applies (``projects.provisioning.manifests_for`` takes a saved project; a draft is turned into the same
``Tenant`` here). The verdicts use the judge onboarding uses, so the review says what ``onboard_project`` will do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from base.errors import Invalid
from base.permissions import is_platform_admin
from clusters.models import Cluster, FederationRole
from pincompute.grants import Allocation, GrantVerdict
from pincompute.netpol import NetworkPlan
from pincompute.rbac import ProjectRole as RbacRole
from pincompute.rbac import Subject
from pincompute.tenancy import PodSecurity as CorePodSecurity
from pincompute.tenancy import Tenant, host_manifests, member_manifests
from pincompute.tiers import Tier
from projects.grants import auto_approve_limit, judge, parse_quota_input
from projects.headroom import region_rooms
from projects.members import MemberInput
from projects.models import PodSecurity, Project, ProjectRole
from projects.network_plan import network_settings
from projects.onboarding import ProjectDraft
from projects.views.common import shown


def members_with_creator(draft: ProjectDraft, creator: Any) -> list[MemberInput]:
    """The members ``onboard_project`` will write: the creator joins as an owner unless listed or a platform admin."""
    members = [m for m in draft.members if m.name.strip()]
    listed = {(m.kind, m.name.strip()) for m in members}
    if not is_platform_admin(creator) and ("user", creator.get_username()) not in listed:
        members.insert(0, MemberInput("user", creator.get_username(), ProjectRole.OWNER))
    return members


@dataclass(frozen=True)
class TierPlan:
    tier: Tier
    grant: Allocation
    verdict: GrantVerdict | None

    @property
    def at_once(self) -> bool:
        return self.verdict is None or self.verdict.applies_at_once

    @property
    def why(self) -> list[str]:
        if self.verdict is None:
            return []
        return [e.message for e in (*self.verdict.over_headroom, *self.verdict.over_auto_approve)]

    @property
    def shown(self) -> dict[str, Any]:
        return shown(self.grant)


def tier_plans(draft: ProjectDraft, creator: Any) -> list[TierPlan]:
    """Per tier: the grant asked for and whether it applies at once (as ``onboard_project`` decides it)."""
    limit = None if is_platform_admin(creator) else auto_approve_limit()
    plans = []
    for tier in Tier:
        data = draft.quotas.get(tier.label)
        try:
            grant = parse_quota_input(data) if data is not None else Allocation()
        except Invalid:
            grant = Allocation()
        verdict = None
        if grant != Allocation():
            verdict = judge(tier, Allocation(), grant, usage=Allocation(), auto_approve=limit)
        plans.append(TierPlan(tier, grant, verdict))
    return plans


def draft_tenant(draft: ProjectDraft, creator: Any, plans: list[TierPlan]) -> Tenant:
    """The draft as the core's builders see a project: the grants that apply at once (a grant waiting
    for approval is 0 on the clusters until approved)."""
    subjects: dict[RbacRole, list[Subject]] = {}
    for member in members_with_creator(draft, creator):
        subject = Subject("User" if member.kind == "user" else "Group", member.name.strip())
        subjects.setdefault(RbacRole(member.role), []).append(subject)
    default_level = Project._meta.get_field("pod_security").default
    return Tenant(
        name=draft.name,
        namespace=Project(name=draft.name).namespace,
        team=draft.team.strip(),
        cost_center=draft.cost_center.strip(),
        pod_security=CorePodSecurity(PodSecurity(default_level).value),
        subjects={role: tuple(sorted(s)) for role, s in subjects.items()},
        grants={plan.tier: plan.grant for plan in plans if plan.at_once and plan.grant != Allocation()},
        network=NetworkPlan(network_settings()),  # no opening yet: owners open ports once it exists
    )


@dataclass(frozen=True)
class ClusterPreview:
    cluster: Cluster
    objects: list[str]  # "Kind/name"
    yaml: str


def cluster_previews(tenant: Tenant) -> list[ClusterPreview]:
    """What every registered cluster will hold for the draft, as the YAML provisioning applies."""
    out = []
    for cluster in Cluster.objects.all():
        manifests = host_manifests(tenant) if cluster.role == FederationRole.HOST else member_manifests(tenant)
        names = [f"{m['kind']}/{m['metadata']['name']}" for m in manifests]
        text = yaml.safe_dump_all(manifests, sort_keys=False, default_flow_style=False)
        out.append(ClusterPreview(cluster, names, text))
    return out


# --- room left per tier -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClusterRoomView:
    cluster: str
    capacity: dict[str, Any]
    requested: dict[str, Any]
    headroom: dict[str, Any]


@dataclass(frozen=True)
class TierRoom:
    tier: Tier
    capacity: dict[str, Any]
    granted: dict[str, Any]
    headroom: dict[str, Any]  # what is left to grant in the region: what onboarding checks against
    clusters: list[ClusterRoomView]  # each member's pools against what runs there now


def region_room() -> dict[Tier, TierRoom]:
    """``projects.headroom.region_rooms`` in display units, for the wizard's quota step."""
    return {
        tier: TierRoom(
            tier,
            shown(room.capacity),
            shown(room.granted),
            shown(room.headroom),
            [
                ClusterRoomView(c.cluster, shown(c.capacity), shown(c.requested), shown(c.headroom))
                for c in room.clusters
            ],
        )
        for tier, room in region_rooms().items()
    }
