"""Portal side of workloads: reading them from the watch caches, scoped to the user's projects."""

from __future__ import annotations

from typing import Any

from clusters import runtime
from projects.models import Project
from workloads.core.kinds import KINDS
from workloads.core.labels import WORKLOAD_LABEL


def _condition(obj: dict[str, Any], kind: str) -> str:
    for cond in obj.get("status", {}).get("conditions", []) or []:
        if cond.get("type") == kind:
            return str(cond.get("status", "Unknown"))
    return "Unknown"


def visible_workloads(user: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """Custom resources in the namespaces of the user's projects, across member clusters.

    Returns rows and a list of human-readable problems (caches not yet synced, clusters down)."""
    projects = {p.namespace: p for p in Project.objects.visible_to(user)}
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for cluster_name, cache in sorted(runtime.member_caches().items()):
        if not cache.synced:
            problems.append(f"{cluster_name}: cache not synced yet ({cache.last_error or 'starting'})")
        for info in KINDS.values():
            for namespace, project in projects.items():
                for obj in cache.list(info.plural, namespace=namespace):
                    meta = obj.get("metadata", {})
                    name = meta.get("name", "")
                    rows.append(
                        {
                            "cluster": cluster_name,
                            "kind": info.kind,
                            "project": project.name,
                            "namespace": namespace,
                            "name": name,
                            "logs_selector": f"{WORKLOAD_LABEL}={name}",
                            "created": meta.get("creationTimestamp", ""),
                            "ready": _condition(obj, "Ready"),
                            "degraded": _condition(obj, "Degraded"),
                            "tier": obj.get("spec", {}).get("tier", ""),
                        }
                    )
    rows.sort(key=lambda r: (r["project"], r["kind"], r["name"], r["cluster"]))
    return rows, problems
