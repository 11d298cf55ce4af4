"""What the clusters must hold for one project (tenant), as plain manifests; no I/O.

On the host: the project's namespace (annotated with its policy) and its ``ProjectQuota`` (the regional grant
per tier, what federation admission counts against). On every member: the namespace (identity labels and Pod Security
admission at the project's level), the three project ClusterRoles (read-only: tenants write nothing on a
member; re-applied with every project, so an upgrade's rules reach every existing RoleBinding), one
RoleBinding per project role, one ResourceQuota per tier scoped
by the tier's PriorityClass (the same grant, as a backstop: a workload may land on any member), and the
LimitRange that gives containers the default requests the quota arithmetic assumes, and the project's
NetworkPolicies (``pincompute.netpol``: only its own pods, the platform's namespaces and what its owners opened
reach its pods). With the identities known, the RoleBindings of the portal's and the federation's rights on the
project's Secrets/ConfigMaps, on the host and on every member (``pincompute.federation_rights``).

Everything is meant to be server-side applied by name, so applying the same ``Tenant`` twice changes
nothing and a half-finished pass is completed by the next one. Removing a project is deleting its
namespace on each cluster, which removes everything inside it.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pincompute.federation_rights import NamespaceRight
from pincompute.grants import NO_POD_CAP, Allocation
from pincompute.kinds import PROJECT_QUOTA
from pincompute.labels import (
    COST_CENTER_LABEL,
    MANAGED_BY,
    MANAGED_BY_LABEL,
    POD_SECURITY_AUDIT_LABEL,
    POD_SECURITY_ENFORCE_LABEL,
    POD_SECURITY_ENFORCE_VERSION_LABEL,
    POD_SECURITY_WARN_LABEL,
    POLICY_ANNOTATION,
    PROJECT_LABEL,
    TEAM_LABEL,
)
from pincompute.netpol import NetworkPlan, network_policy_manifests
from pincompute.policy import OPEN, ProjectPolicy, annotation_value
from pincompute.quantity import GPU_RESOURCE, Resources, format_cpu, format_memory
from pincompute.quota import TierQuota, limit_range_manifest, resource_quota_manifests
from pincompute.rbac import ProjectRole, Subject, cluster_role_manifests, role_binding_manifests
from pincompute.specs.schema import Field, Int, IntOrStr, Obj, Str, obj
from pincompute.tiers import Tier


class PodSecurity(enum.Enum):
    """Pod Security Standards level of a project's namespaces (only platform admins change it)."""

    PRIVILEGED = "privileged"
    BASELINE = "baseline"
    RESTRICTED = "restricted"


DEFAULT_POD_SECURITY = PodSecurity.BASELINE
POD_SECURITY_VERSION = "latest"

_NOT_IN_LABEL_VALUE = re.compile(r"[^A-Za-z0-9_.-]+")


def label_value(text: str) -> str:
    """A valid label value (63 characters of ``[A-Za-z0-9_.-]``, alphanumeric at both ends)."""
    return _NOT_IN_LABEL_VALUE.sub("-", text)[:63].strip("-_.")


@dataclass(frozen=True)
class Tenant:
    """Everything the clusters need to know about one project, read once from wherever it is stored."""

    name: str
    namespace: str
    team: str
    cost_center: str
    pod_security: PodSecurity = DEFAULT_POD_SECURITY
    subjects: Mapping[ProjectRole, tuple[Subject, ...]] = field(default_factory=dict)
    grants: Mapping[Tier, Allocation] = field(default_factory=dict)
    network: NetworkPlan = field(default_factory=NetworkPlan)
    policy: ProjectPolicy = OPEN
    # the RoleBindings of the portal's and the federation's rights on the project's Secrets/ConfigMaps, on the host and
    # on every member (``pincompute.federation_rights``)
    host_rights: tuple[NamespaceRight, ...] = ()
    member_rights: tuple[NamespaceRight, ...] = ()

    def grant(self, tier: Tier) -> Allocation:
        return self.grants.get(tier, Allocation())


def pod_security_labels(level: PodSecurity) -> dict[str, str]:
    """Enforce, audit and warn at ``level`` (the latest version of the standard)."""
    return {
        POD_SECURITY_ENFORCE_LABEL: level.value,
        POD_SECURITY_ENFORCE_VERSION_LABEL: POD_SECURITY_VERSION,
        POD_SECURITY_AUDIT_LABEL: level.value,
        POD_SECURITY_WARN_LABEL: level.value,
    }


def namespace_manifest(tenant: Tenant) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": tenant.namespace,
            "labels": {
                PROJECT_LABEL: tenant.name,
                TEAM_LABEL: label_value(tenant.team),
                COST_CENTER_LABEL: label_value(tenant.cost_center),
                MANAGED_BY_LABEL: MANAGED_BY,
                **pod_security_labels(tenant.pod_security),
            },
        },
    }


def _grant_amounts(grant: Allocation) -> dict[str, str | int]:
    """The grant verbatim (the federation decides what a pod count of 0 means for admission)."""
    return {
        "cpu": format_cpu(grant.cpu_milli),
        "memory": format_memory(grant.memory_bytes),
        GPU_RESOURCE: str(grant.gpu),
        "pods": grant.pods,
    }


def _tier_grant_schema(tier: Tier) -> Obj:
    return obj(
        Field("cpu", IntOrStr(description="Requested CPU, as a quantity.")),
        Field("memory", IntOrStr(description="Requested memory, as a quantity.")),
        Field(GPU_RESOURCE, IntOrStr(description="GPUs.")),
        Field("pods", Int(minimum=0, description="Pods at once.")),
        description=f"The grant in the {tier.value} tier (requests).",
    )


PROJECT_QUOTA_SPEC = obj(
    Field("project", Str(description="The project this grant belongs to."), required=True),
    Field(
        "tiers",
        obj(*(Field(tier.value, _tier_grant_schema(tier)) for tier in Tier), description="The grant of each tier."),
        required=True,
    ),
    description="The regional grant per tier, written by the portal; admission counts workloads against it.",
)
"""The ``ProjectQuota`` spec; ``crds.project_quota_crd`` turns it into the CRD schema."""


def project_quota_manifest(tenant: Tenant) -> dict[str, Any]:
    """The project's quota object on the host (every tier spelled out: an absent grant is an explicit 0)."""
    return {
        "apiVersion": PROJECT_QUOTA.api_version,
        "kind": PROJECT_QUOTA.kind,
        "metadata": {
            "name": tenant.name,
            "namespace": tenant.namespace,
            "labels": {PROJECT_LABEL: tenant.name, MANAGED_BY_LABEL: MANAGED_BY},
        },
        "spec": {
            "project": tenant.name,
            "tiers": {tier.value: _grant_amounts(tenant.grant(tier)) for tier in Tier},
        },
    }


def grants_of_quota(quota: Mapping[str, Any] | None) -> dict[Tier, Allocation]:
    """The grant per tier a ``ProjectQuota`` object holds (the inverse of ``project_quota_manifest``);
    no object: nothing granted."""
    tiers = ((quota or {}).get("spec") or {}).get("tiers") or {}
    grants = {}
    for tier in Tier:
        raw = tiers.get(tier.value) or {}
        resources = Resources.from_k8s({k: v for k, v in raw.items() if k != "pods"})
        grant = Allocation.of(resources, int(raw.get("pods") or 0))
        grants[tier] = admission_grant(grant) if quota is not None else grant
    return grants


def admission_grant(grant: Allocation) -> Allocation:
    """The grant as admission counts it: a pod count of 0 is no pod cap (``NO_POD_CAP``)."""
    return grant if grant.pods else Allocation(grant.cpu_milli, grant.memory_bytes, grant.gpu, NO_POD_CAP)


def host_namespace_manifest(tenant: Tenant) -> dict[str, Any]:
    """The namespace on the host, annotated with the project's policy (``pincompute.policy``), which the host's
    admission webhook judges every workload write by."""
    manifest = namespace_manifest(tenant)
    manifest["metadata"]["annotations"] = {POLICY_ANNOTATION: annotation_value(tenant.policy)}
    return manifest


def host_manifests(tenant: Tenant) -> list[dict[str, Any]]:
    """What the host holds for the project, in apply order (the namespace first): with the portal's and the
    operator's rights on the project's Secrets/ConfigMaps (``federation_rights``)."""
    rights = [right.manifest(tenant.namespace) for right in tenant.host_rights]
    return [host_namespace_manifest(tenant), project_quota_manifest(tenant), *rights]


def member_manifests(tenant: Tenant) -> list[dict[str, Any]]:
    """What every member holds for the project, in apply order (the namespace first)."""
    # A pod count of 0 is no pod cap on the backstop: it must never be stricter than admission, and the
    # requests quota still bounds the tier.
    quota = TierQuota(
        {tier: grant.resources for tier, grant in tenant.grants.items()},
        {tier: grant.pods for tier, grant in tenant.grants.items() if grant.pods},
    )
    return [
        namespace_manifest(tenant),
        *cluster_role_manifests(),
        *role_binding_manifests(tenant.namespace, tenant.subjects),
        *resource_quota_manifests(tenant.namespace, quota),
        limit_range_manifest(tenant.namespace),
        *network_policy_manifests(tenant.name, tenant.namespace, tenant.network),
        *(right.manifest(tenant.namespace) for right in tenant.member_rights),
    ]
