"""Who may do what in a project's namespace on a member cluster: three ClusterRoles and the RoleBindings.

The ClusterRoles are cluster-wide and identical everywhere (applied at cluster registration, like the
tier PriorityClasses); each project namespace gets one RoleBinding per project role listing the users
and OIDC groups that hold it. Kubernetes authenticates the same identities the portal does (the OIDC
username and groups claims), so a member's kubectl sees what the portal shows.

Viewers read everything of a workload, its native objects, events and logs. Developers also manage the
workload custom resources (and their scale subresource) and open shells (``pods/exec``, ``pods/attach``).
Owners are developers who may also read who has access (RoleBindings). Nobody gets write access to
native objects: the operator owns them, and a hand edit would be reverted.
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
_WRITE = ["create", "update", "patch", "delete", "deletecollection"]


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


def _workload_rules(verbs: list[str]) -> list[dict[str, Any]]:
    plurals = [info.plural for info in KINDS.values()]
    scalable = [f"{info.plural}/scale" for info in KINDS.values() if info.scalable]
    status = [f"{info.plural}/status" for info in KINDS.values()]
    rules: list[dict[str, Any]] = [
        {"apiGroups": [GROUP], "resources": plurals, "verbs": verbs},
        {"apiGroups": [GROUP], "resources": status, "verbs": ["get"]},
    ]
    if verbs != _READ:
        rules.append({"apiGroups": [GROUP], "resources": scalable, "verbs": ["get", "update", "patch"]})
    return rules


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
    {"apiGroups": ["networking.k8s.io"], "resources": ["ingresses"], "verbs": _READ},
    {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": _READ},
    {"apiGroups": ["kubeflow.org"], "resources": ["pytorchjobs", "tfjobs"], "verbs": _READ},
]
_SHELL: list[dict[str, Any]] = [
    {"apiGroups": [""], "resources": ["pods/exec", "pods/attach"], "verbs": ["get", "create"]}
]
_ACCESS_READ: list[dict[str, Any]] = [{"apiGroups": [RBAC_GROUP], "resources": ["rolebindings"], "verbs": _READ}]


def role_rules(role: ProjectRole) -> list[dict[str, Any]]:
    """The policy rules of ``role``'s ClusterRole (each role includes the one below it)."""
    if role is ProjectRole.VIEWER:
        return [*_workload_rules(_READ), *_NATIVE_READ]
    developer = [*_workload_rules([*_READ, *_WRITE]), *_NATIVE_READ, *_SHELL]
    return developer if role is ProjectRole.DEVELOPER else [*developer, *_ACCESS_READ]


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
