"""Use over time against requests and limits, for the use page's charts: one range query per resource over the
scope (a project, one workload's pods, or one pod), with the scope's requests and limits as reference lines (what
the running containers ask for now)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from base.errors import FieldError, Invalid
from usage import prom
from usage.use import GIB, UseReport, rate_window

WINDOWS = {"1h": 3600, "6h": 6 * 3600, "24h": 86400, "7d": 7 * 86400}


def window_seconds(raw: str | None) -> int:
    value = raw or "1h"
    if value not in WINDOWS:
        raise Invalid(fields=[FieldError("window", f"Use one of {', '.join(WINDOWS)}.")])
    return WINDOWS[value]


def _selector(namespace: str, pods: list[str] | None) -> str:
    sel = f'namespace={prom.quote(namespace)}, container!=""'
    if pods is not None:
        sel += f", pod=~{prom.quote('|'.join(re.escape(p) for p in sorted(pods)) or '^$')}"
    return sel


def _line(series: list[prom.Series]) -> list[tuple[float, float]]:
    return series[0].points if series else []


def history(namespace: str, report: UseReport, seconds: int) -> dict[str, Any]:
    """``{"cpu": chart, "memory": chart}`` (Chart.js configs, ``partials/chart.html``), narrowed to the
    report's scope when it is a workload or a pod (the pods running it now)."""
    narrowed = report.query.workload or report.query.pod
    pods = report.pods if narrowed else None
    sel = _selector(namespace, pods)
    cpu = _line(prom.query_range(f"sum(rate(container_cpu_usage_seconds_total{{{sel}}}[{rate_window()}s]))", seconds))
    memory = _line(prom.query_range(f"sum(container_memory_working_set_bytes{{{sel}}})", seconds))
    t = report.total
    return {
        "cpu": _chart(cpu, t.cpu_request, t.cpu_limit, "cores", 1.0),
        "memory": _chart(memory, t.memory_request, t.memory_limit, "GiB", GIB),
    }


def _chart(points: list[tuple[float, float]], request: float, limit: float | None, unit: str,
           scale: float) -> dict[str, Any]:  # fmt: skip
    labels = [datetime.fromtimestamp(ts, UTC).strftime("%H:%M") for ts, _ in points]
    datasets: list[dict[str, Any]] = [
        {"label": "use", "data": [round(v / scale, 4) for _, v in points], "fill": True},
        {"label": "request", "data": [round(request / scale, 4)] * len(points), "fill": False, "borderDash": [4, 3]},
    ]
    if limit is not None:
        datasets.append({"label": "limit", "data": [round(limit / scale, 4)] * len(points), "fill": False,
                         "borderDash": [1, 3]})  # fmt: skip
    return {"type": "line", "data": {"labels": labels, "datasets": datasets}, "options": {"unit": unit}}
