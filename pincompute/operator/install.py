"""Install what the platform needs cluster-wide and wait until the CRDs are Established.

A member gets the workload CRDs, the tier PriorityClasses and the project ClusterRoles; the host gets
the workload CRDs too (workloads are persisted there first, never run there) and the CRDs of the
platform's own kinds it serves (ProjectQuota, MemberCluster). Both at cluster registration.
"""

from __future__ import annotations

import time
from typing import Any

from pincompute.crds import crd_manifests, platform_crd_manifests
from pincompute.errors import TemporaryError
from pincompute.kinds import InstalledOn
from pincompute.operator.kubeio import CLUSTER_ROLE, CRD, PRIORITY_CLASS, Kube, Resource
from pincompute.rbac import cluster_role_manifests
from pincompute.tiers import priority_class_manifests


def _established(obj: dict[str, Any]) -> bool:
    return any(
        c.get("type") == "Established" and c.get("status") == "True"
        for c in (obj.get("status") or {}).get("conditions") or []
    )


def platform_manifests(role: InstalledOn) -> list[tuple[Resource, dict[str, Any]]]:
    """Everything ``install`` applies on a ``role`` cluster, in the order it applies them (CRDs first)."""
    objects = [(CRD, m) for m in (*crd_manifests(), *platform_crd_manifests(role))]
    if role is InstalledOn.MEMBER:
        objects += [(PRIORITY_CLASS, m) for m in priority_class_manifests()]
        objects += [(CLUSTER_ROLE, m) for m in cluster_role_manifests()]
    return objects


def install(kube: Kube, timeout: float = 60.0, *, role: InstalledOn = InstalledOn.MEMBER) -> list[str]:
    """Server-side apply everything ``role`` clusters need (idempotent); returns the CRD names once all
    are Established."""
    objects = platform_manifests(role)
    for resource, manifest in objects:
        kube.apply(manifest, resource)
    crds = [manifest for resource, manifest in objects if resource is CRD]
    names = [m["metadata"]["name"] for m in crds]
    deadline = time.monotonic() + timeout
    pending = list(names)
    while pending:
        pending = [n for n in pending if not _established(kube.get(CRD, None, n))]
        if not pending:
            break
        if time.monotonic() > deadline:
            raise TemporaryError(f"{kube.name}: CRDs not Established after {timeout:.0f}s: {', '.join(pending)}")
        time.sleep(0.2)
    return names
