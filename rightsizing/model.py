"""The VPA recommender's model for one container, pure (no Django, no I/O): a percentile of its use over a window
plus a safety margin, rounded up to sensible units, never under a minimum and never over the container's limit (a
request above its limit is refused), with a confidence from how much history there is.

The figures come from ``rightsizing.history`` (PromQL over the window); what to do with them is decided here, so
the arithmetic is property-tested without a Prometheus. docs/usage.md#right-sizing writes the method down.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pincompute.config_refs import pod_of
from pincompute.quantity import format_cpu, format_memory

MIB = 1 << 20
GIB = 1 << 30
MARGIN = 0.15  # the VPA recommender's --recommendation-margin-fraction
CPU_PERCENTILE = 0.9  # the VPA's target CPU percentile; memory takes the peak working set (an OOM kill is worse)
CPU_STEP_MILLI, MIN_CPU_MILLI = 5, 10
MEMORY_STEP, MIN_MEMORY = 4 * MIB, 16 * MIB
DAY = 86400.0
CONFIDENCE_DAYS = (("low", 1.0), ("medium", 7.0))  # under a day: low; under a week: medium; else high
HOURS_PER_MONTH = Decimal(730)


@dataclass(frozen=True)
class History:
    """What the window says of one container (every pod running it): ``None`` when nothing was scraped."""

    cpu_cores: float | None  # the CPU percentile of its rate, cores
    memory_bytes: float | None  # the peak working set, bytes
    seconds: float  # how much of the window has samples of it


@dataclass(frozen=True)
class Recommendation:
    cpu_milli: int
    memory_bytes: int
    confidence: str  # low, medium or high
    history_days: float
    capped: tuple[str, ...] = ()  # the resources held at the container's limit

    @property
    def cpu(self) -> str:
        return format_cpu(self.cpu_milli)

    @property
    def memory(self) -> str:
        return format_memory(self.memory_bytes)


def round_up(value: float, step: int) -> int:
    return math.ceil(value / step - 1e-9) * step


def confidence_of(seconds: float) -> tuple[str, float]:
    """(level, days of history): the VPA scales its bounds by days of history; we say it as a word."""
    days = max(seconds, 0.0) / DAY
    return next((level for level, under in CONFIDENCE_DAYS if days < under), "high"), days


def recommend(history: History, *, cpu_limit_milli: int | None = None,
              memory_limit_bytes: int | None = None) -> Recommendation | None:  # fmt: skip
    """The recommended requests, or ``None`` when the window holds no use of the container (no history: no
    advice, rather than a guess)."""
    if history.cpu_cores is None or history.memory_bytes is None or history.seconds <= 0:
        return None
    cpu = max(round_up(max(history.cpu_cores, 0.0) * 1000 * (1 + MARGIN), CPU_STEP_MILLI), MIN_CPU_MILLI)
    memory = max(round_up(max(history.memory_bytes, 0.0) * (1 + MARGIN), MEMORY_STEP), MIN_MEMORY)
    capped = []
    if cpu_limit_milli is not None and cpu > cpu_limit_milli:
        cpu, capped = cpu_limit_milli, [*capped, "cpu"]
    if memory_limit_bytes is not None and memory > memory_limit_bytes:
        memory, capped = memory_limit_bytes, [*capped, "memory"]
    level, days = confidence_of(history.seconds)
    return Recommendation(cpu, memory, level, days, tuple(capped))


def monthly_saving(cpu_cores: float, memory_gib: float, pods: int, cpu_price: Decimal,
                   memory_price: Decimal) -> Decimal:  # fmt: skip
    """What requesting ``cpu_cores`` and ``memory_gib`` less in each of ``pods`` pods saves in a month (730 hours) at
    the tier's prices per core-hour and GiB-hour; negative when the recommendation asks for more."""
    hourly = Decimal(str(cpu_cores)) * cpu_price + Decimal(str(memory_gib)) * memory_price
    return (hourly * pods * HOURS_PER_MONTH).quantize(Decimal("0.01"))


def apply_to_document(document: Mapping[str, Any], recommended: Mapping[str, Recommendation]) -> dict[str, Any]:
    """A copy of a workload document whose named containers request what is recommended (the rest as it was)."""
    out = copy.deepcopy(dict(document))
    found = pod_of(out)
    if found is None:
        return out
    for container in found[1].get("containers") or []:
        rec = recommended.get(str(container.get("name")))
        if rec is None:
            continue
        resources = container.setdefault("resources", {})
        requests = resources.setdefault("requests", {})
        requests["cpu"], requests["memory"] = rec.cpu, rec.memory
    return out
