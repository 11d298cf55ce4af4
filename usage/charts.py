"""Chart.js configs (``templates/partials/chart.html``) and table rows from a cost report, for the pages."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from typing import Any

from usage.costmodel import IDLE, Report
from usage.queries import allocation_body, by_cost, pool_body

TOP = 8  # series beyond the largest few are summed as "other"
OTHER = "other"


def _label(name: str) -> str:
    return {"": "(no workload label)", IDLE: "idle capacity"}.get(name, name)


def _money(value: Fraction) -> float:
    return round(float(value), 4)


def step_label(report: Report, start: Any) -> str:
    return start.strftime("%b %d" if report.step % 86400 == 0 else "%b %d %H:%M")


def cost_over_time(report: Report, currency: str) -> dict[str, Any]:
    """Stacked bars: each step's cost by aggregate (the largest ``TOP`` over the window, the rest as other)."""
    totals = by_cost(report.totals())
    keep = [a.name for a in totals[:TOP]]
    series: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(report.steps))
    for i, step in enumerate(report.steps):
        for name, a in step.allocations.items():
            series[name if name in keep else OTHER][i] += _money(a.total_cost)
    names = [*keep, *([OTHER] if OTHER in series else [])]
    return {
        "type": "bar",
        "data": {
            "labels": [step_label(report, s.start) for s in report.steps],
            "datasets": [{"label": _label(n), "data": [round(v, 4) for v in series[n]]} for n in names],
        },
        "options": {"stacked": True, "unit": currency},
    }


def cost_share(report: Report, currency: str, *, kind: str = "doughnut") -> dict[str, Any]:
    """One slice (or bar) per aggregate over the window."""
    totals = by_cost(report.totals())
    return {
        "type": kind,
        "data": {
            "labels": [_label(a.name) for a in totals[: TOP * 2]],
            "datasets": [{"label": "Cost", "data": [_money(a.total_cost) for a in totals[: TOP * 2]]}],
        },
        "options": {"unit": currency, **({"indexAxis": "y"} if kind == "bar" else {})},
    }


def request_against_use(report: Report, currency: str) -> dict[str, Any]:
    """Grouped bars per aggregate over the window: its cost by request beside its cost by use (max(request, use));
    idle capacity, where shown, is its own bar pair (by use it is what neither requests nor use took)."""
    totals = by_cost(report.totals())[: TOP * 2]
    return {
        "type": "bar",
        "data": {
            "labels": [_label(a.name) for a in totals],
            "datasets": [
                {"label": "by request", "data": [_money(a.total_request_cost) for a in totals]},
                {"label": "by use", "data": [_money(a.total_cost) for a in totals]},
            ],
        },
        "options": {"unit": currency, "indexAxis": "y"},
    }


def pool_rows(report: Report) -> list[dict[str, Any]]:
    return [pool_body(p) for p in report.pools]


def table(report: Report) -> list[dict[str, Any]]:
    return [{**allocation_body(a), "label": _label(a.name)} for a in by_cost(report.totals())]


def capacity_chart(points: list[dict[str, Any]], tier: str, resource: str = "cores") -> dict[str, Any]:
    """One tier's pool on one member over time: capacity as a line, allocated and idle stacked."""
    mine = [p for p in points if p["tier"] == tier]
    return {
        "type": "line",
        "data": {
            "labels": [p["start"].strftime("%b %d %H:%M") for p in mine],
            "datasets": [
                {
                    "label": "capacity",
                    "data": [p[f"capacity_{resource}"] for p in mine],
                    "fill": False,
                    "borderDash": [4, 3],
                },
                {"label": "allocated", "data": [p[f"allocated_{resource}"] for p in mine], "tier": tier, "fill": True},
                {"label": "idle", "data": [p[f"idle_{resource}"] for p in mine], "fill": False},
            ],
        },
        "options": {"unit": resource},
    }
