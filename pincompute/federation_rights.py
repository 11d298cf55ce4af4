"""The federation's rights on a project's Secrets and ConfigMaps, per project namespace, never cluster-wide.

The federation copies the Secrets/ConfigMaps a project's workloads reference from the host to the members where a
shard lands (``federation/config_copies.py``). It needs to read them on the host and write its copies on the
members, and only there: each project namespace gets a RoleBinding (applied by provisioning, with the rest of
the project) of a ClusterRole the chart installs, to the operator's identity. A namespace that is not a project's
has no such binding, so the operator reads no Secret in ``kube-system`` on the host and writes none there on a
member. On the members a ValidatingAdmissionPolicy (the chart's) further refuses the operator any write to a
Secret or ConfigMap without the copy label, so its copies can never replace or delete a member's own objects.

The ClusterRoles hold the rules (one place, upgraded with the chart); the portal only binds them (``bind`` on
these names): it never needs the rights itself, nor ``escalate``.
"""

from __future__ import annotations

from typing import Any

from pincompute.labels import MANAGED_BY, MANAGED_BY_LABEL
from pincompute.rbac import RBAC_API_VERSION, RBAC_GROUP, Subject

HOST_CONFIGS_ROLE = "pincompute-federation-project-configs"  # on the host: read the project's Secrets/ConfigMaps
MEMBER_COPIES_ROLE = "pincompute-federation-config-copies"  # on a member: write the federation's copies
BINDING_NAME = "pincompute-federation-configs"


def operator_subject(username: str) -> Subject | None:
    """The operator's identity as the clusters authenticate it (a ServiceAccount's
    ``system:serviceaccount:NAMESPACE:NAME``); none when the deployment names none (a local stack's admin)."""
    return Subject("User", username) if username else None


def operator_binding(namespace: str, role: str, operator: Subject) -> dict[str, Any]:
    """The RoleBinding that gives ``operator`` the ClusterRole ``role``'s rights in ``namespace`` only."""
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": "RoleBinding",
        "metadata": {"name": BINDING_NAME, "namespace": namespace, "labels": {MANAGED_BY_LABEL: MANAGED_BY}},
        "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": role},
        "subjects": [operator.manifest()],
    }
