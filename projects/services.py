"""Read helpers and named write actions for projects."""

from __future__ import annotations

from typing import Any

from django.db.models import Sum

from projects.models import Project, Tier
from workloads.core.quantity import format_cpu, format_memory


def project_quota_rows(project: Project) -> list[dict[str, Any]]:
    """Granted quota per tier summed over member clusters, formatted for display."""
    totals = {row["tier"]: row for row in project.quotas.values("tier").annotate(
        cpu=Sum("cpu_milli"), mem=Sum("memory_bytes"), gpu=Sum("gpu"))}
    rows = []
    for tier in Tier:
        row = totals.get(tier.value, {})
        rows.append({
            "tier": tier.value, "label": tier.label,
            "cpu": format_cpu(row.get("cpu") or 0), "memory": format_memory(row.get("mem") or 0),
            "gpu": row.get("gpu") or 0,
        })
    return rows
