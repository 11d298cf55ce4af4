"""Rights on a project's Secrets and ConfigMaps, bound per project namespace, never cluster-wide.

Two identities touch a project's Secrets/ConfigMaps besides its members: the portal writes them on the host (the
Secrets and ConfigMaps pages, ``configs/``), and the federation reads them there and writes its copies on the members
where a shard lands (``federation/config_copies.py``). Each needs those rights in project namespaces only: each
project namespace gets a RoleBinding (applied by provisioning, with the rest of the project) of a ClusterRole the
chart installs. A namespace that is not a project's has no such binding, so neither reads a Secret in
``kube-system``. On the members a ValidatingAdmissionPolicy (the chart's) further refuses the operator any write to a
Secret without the copy label, so its copies can never replace or delete a member's own objects.

The ClusterRoles hold the rules (one place, upgraded with the chart) and are named per release (two releases on one
cluster must not collide), so their names come from the deployment's settings; the portal only binds them (``bind``
on these names): it never needs ``escalate``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pincompute.labels import MANAGED_BY, MANAGED_BY_LABEL
from pincompute.rbac import RBAC_API_VERSION, RBAC_GROUP, Subject

BINDING_NAME = "pincompute-federation-configs"
PORTAL_BINDING_NAME = "pincompute-portal-configs"


@dataclass(frozen=True)
class NamespaceRight:
    """The ClusterRole ``role`` bound to ``subjects`` by a RoleBinding named ``binding`` in a project namespace."""

    binding: str
    role: str
    subjects: tuple[Subject, ...]

    def manifest(self, namespace: str) -> dict[str, Any]:
        return {
            "apiVersion": RBAC_API_VERSION,
            "kind": "RoleBinding",
            "metadata": {"name": self.binding, "namespace": namespace, "labels": {MANAGED_BY_LABEL: MANAGED_BY}},
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": self.role},
            "subjects": [s.manifest() for s in self.subjects],
        }


def right_of(binding: str, role: str, usernames: Iterable[str]) -> tuple[NamespaceRight, ...]:
    """The right for the identities as the clusters authenticate them (a ServiceAccount's
    ``system:serviceaccount:NAMESPACE:NAME``); none when the deployment names none (a local stack's identities are
    the clusters' admins)."""
    subjects = tuple(Subject("User", u) for u in dict.fromkeys(u.strip() for u in usernames) if u)
    return (NamespaceRight(binding, role, subjects),) if subjects and role else ()
