"""Install the CRDs and tier PriorityClasses on member clusters and wait until the CRDs are Established."""

from __future__ import annotations

import time
from typing import Any

from workloads.core.crds import crd_manifests
from workloads.core.errors import TemporaryError
from workloads.core.operator.kubeio import CRD, PRIORITY_CLASS, Kube
from workloads.core.tiers import priority_class_manifests


def _established(obj: dict[str, Any]) -> bool:
    return any(
        c.get("type") == "Established" and c.get("status") == "True"
        for c in (obj.get("status") or {}).get("conditions") or []
    )


def install(kube: Kube, timeout: float = 60.0) -> list[str]:
    """Server-side apply everything (idempotent); returns the CRD names once all are Established."""
    crds = crd_manifests()
    for manifest in crds:
        kube.apply(manifest, CRD)
    for manifest in priority_class_manifests():
        kube.apply(manifest, PRIORITY_CLASS)
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
