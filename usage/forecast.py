"""Capacity forecast: when a member's pool fills at the rate its allocation has been growing.

Method (docs/usage.md, "Capacity forecast"): an ordinary least-squares line through the hourly average allocated
amount over the capacity window, per tier and resource; the pool is full when the line reaches the latest
capacity. The error shown is the fit's residual standard deviation (root mean square of the residuals, in the
resource's unit), so a noisy history reads as such rather than as a precise date.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pincompute.tiers import Tier

RESOURCE_UNITS = {"cores": "CPU", "gib": "memory", "gpus": "GPU"}


def tier_name(label: str) -> str:
    """``ondemand`` -> ``OnDemand``, as the product spells its tiers."""
    try:
        return Tier.parse(label).value
    except ValueError:
        return label.capitalize()


@dataclass(frozen=True)
class Trend:
    slope_per_day: float
    now_value: float
    residual: float


@dataclass(frozen=True)
class Forecast:
    tier: str
    unit: str
    capacity: float
    allocated: float
    slope_per_day: float
    residual: float
    days_to_full: float | None  # None: not growing, or no capacity

    @property
    def sentence(self) -> str:
        name = f"{tier_name(self.tier)} pool {RESOURCE_UNITS[self.unit]}"
        if self.days_to_full is None:
            return f"{name}: not filling at this rate."
        if self.days_to_full <= 0:
            return f"{name}: full now."
        return f"{name}: full in about {self.days_to_full:.1f} days at this rate."


def least_squares(xs: list[float], ys: list[float]) -> Trend | None:
    """The line through (xs, ys) minimising the squared error; None under two distinct xs."""
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    intercept = my - slope * mx
    residual = math.sqrt(sum((y - (intercept + slope * x)) ** 2 for x, y in zip(xs, ys, strict=True)) / n)
    return Trend(slope, intercept + slope * xs[-1], residual)


def forecasts(points: list[dict[str, Any]], tiers: tuple[str, ...]) -> list[Forecast]:
    """Per tier and resource, from ``usage.queries.capacity`` points (hourly averages, oldest first)."""
    found = []
    for tier in tiers:
        rows = sorted((p for p in points if p["tier"] == tier), key=lambda p: p["start"])
        if len(rows) < 2:
            continue
        origin: datetime = rows[0]["start"]
        xs = [(p["start"] - origin).total_seconds() / 86400 for p in rows]
        for unit in RESOURCE_UNITS:
            capacity = float(rows[-1][f"capacity_{unit}"])
            trend = least_squares(xs, [float(p[f"allocated_{unit}"]) for p in rows])
            if trend is None or capacity <= 0:
                continue
            days = None
            if trend.slope_per_day > 0:
                days = max((capacity - trend.now_value) / trend.slope_per_day, 0.0)
            found.append(Forecast(tier, unit, capacity, trend.now_value, trend.slope_per_day, trend.residual, days))
    return found
