"""Who may do what in a project's namespace on a member cluster: three ClusterRoles and the RoleBindings.

The ClusterRoles are cluster-wide and identical everywhere (applied at cluster registration, like the
tier PriorityClasses, and again by every provisioning run on a member, so an upgrade reaches existing
projects); each project namespace gets one RoleBinding per project role listing the users and OIDC groups
that hold it. Kubernetes authenticates the same identities the portal does (the OIDC username and groups
claims), so a member's kubectl sees what the portal shows.

Members obey the host: tenants write nothing there. Workloads are submitted on the host, where admission,
policy, placement, quota and audit apply; the federation writes the shards and the member operator the native
objects. Every role reads its workloads' shards, native objects, events and console logs; shells go through
the portal only (authorized, audited, recorded), so nobody gets ``pods/exec``, ``pods/attach`` or
``pods/ephemeralcontainers`` (debug containers) here. Owners
also read who has access (RoleBindings). The member operator refuses a workload object the federation did not
place (``pincompute.federation.propagation.unplaced_reason``), so an admin's hand-written one runs nothing either.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pincompute import GROUP
from pincompute.kinds import KINDS
from pincompute.labels import MANAGED_BY, MANAGED_BY_LABEL

RBAC_API_VERSION = "rbac.authorization.k8s.io/v1"
RBAC_GROUP = "rbac.authorization.k8s.io"
_READ = ["get", "list", "watch"]


class ProjectRole(enum.Enum):
    """A member's role in a project, as the portal stores it (``owner``, ``developer``, ``viewer``)."""

    OWNER = "owner"
    DEVELOPER = "developer"
    VIEWER = "viewer"

    @property
    def cluster_role(self) -> str:
        """The ClusterRole (and the name of the project's RoleBinding) of this role."""
        return f"pincompute-project-{self.value}"


@dataclass(frozen=True, order=True)
class Subject:
    """A user (by username) or an OIDC group (by name), as Kubernetes authenticates them."""

    kind: Literal["User", "Group"]
    name: str

    def manifest(self) -> dict[str, str]:
        return {"kind": self.kind, "apiGroup": RBAC_GROUP, "name": self.name}


def _workload_rules() -> list[dict[str, Any]]:
    plurals = [info.plural for info in KINDS.values()]
    status = [f"{info.plural}/status" for info in KINDS.values()]
    return [
        {"apiGroups": [GROUP], "resources": plurals, "verbs": _READ},
        {"apiGroups": [GROUP], "resources": status, "verbs": ["get"]},
    ]


_NATIVE_READ: list[dict[str, Any]] = [
    {
        "apiGroups": [""],
        "resources": [
            "pods",
            "pods/log",
            "services",
            "endpoints",
            "configmaps",
            "persistentvolumeclaims",
            "events",
            "resourcequotas",
            "limitranges",
        ],
        "verbs": _READ,
    },
    {"apiGroups": ["apps"], "resources": ["deployments", "replicasets", "daemonsets"], "verbs": _READ},
    {"apiGroups": ["batch"], "resources": ["jobs", "cronjobs"], "verbs": _READ},
    {"apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers"], "verbs": _READ},
    {"apiGroups": ["networking.k8s.io"], "resources": ["ingresses", "networkpolicies"], "verbs": _READ},
    {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": _READ},
    {"apiGroups": ["kubeflow.org"], "resources": ["pytorchjobs", "tfjobs"], "verbs": _READ},
]
_ACCESS_READ: list[dict[str, Any]] = [{"apiGroups": [RBAC_GROUP], "resources": ["rolebindings"], "verbs": _READ}]


def role_rules(role: ProjectRole) -> list[dict[str, Any]]:
    """The policy rules of ``role``'s ClusterRole: reads only (viewers and developers alike on a member; owners
    also read the project's RoleBindings)."""
    reads = [*_workload_rules(), *_NATIVE_READ]
    return [*reads, *_ACCESS_READ] if role is ProjectRole.OWNER else reads


def cluster_role_manifests() -> list[dict[str, Any]]:
    """One ClusterRole per project role; applied to every member cluster at registration."""
    return [
        {
            "apiVersion": RBAC_API_VERSION,
            "kind": "ClusterRole",
            "metadata": {"name": role.cluster_role, "labels": {MANAGED_BY_LABEL: MANAGED_BY}},
            "rules": role_rules(role),
        }
        for role in ProjectRole
    ]


def role_binding_manifests(namespace: str, subjects: Mapping[ProjectRole, Iterable[Subject]]) -> list[dict[str, Any]]:
    """One RoleBinding per project role, always all three (a role nobody holds binds no subject), so that
    removing the last member of a role is applied like any other change."""
    return [
        {
            "apiVersion": RBAC_API_VERSION,
            "kind": "RoleBinding",
            "metadata": {"name": role.cluster_role, "namespace": namespace, "labels": {MANAGED_BY_LABEL: MANAGED_BY}},
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": role.cluster_role},
            "subjects": [s.manifest() for s in sorted(set(subjects.get(role, ())))],
        }
        for role in ProjectRole
    ]
