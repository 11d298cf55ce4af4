"""Each container's use over a window, read through PromQL (``usage.prom``, cached per scrape interval): the CPU
percentile of its rate and the peak working set, over every pod of the workload the members' caches hold, and how
much of the window has samples. Three instant queries per workload and window, whatever its number of pods.

A container is named by its name across pods (the VPA aggregates a workload's pods the same way): its CPU figure is
the highest of its pods' percentiles, its memory the highest peak. The pods are the ones the watch caches hold now
(running or finished): a rollout replaces them, so history starts again after a change of requests, when the old
use says least about the new pods.
"""

from __future__ import annotations

import math
import re

from rightsizing.model import CPU_PERCENTILE, History
from usage import prom
from usage.use import rate_window


def subquery_step(seconds: int) -> int:
    """A point per scrape interval, at most about 10,000 points per series over the window."""
    return max(prom.scrape_seconds(), math.ceil(seconds / 10_000))


def _selector(namespace: str, pods: list[str]) -> str:
    names = "|".join(re.escape(p) for p in sorted(pods))
    return f'namespace={prom.quote(namespace)}, pod=~{prom.quote(names)}, container!=""'


def _by_container(series: list[prom.Series]) -> dict[str, float]:
    return {s.labels.get("container", ""): s.points[-1][1] for s in series if s.points}


def histories(namespace: str, pods: list[str], seconds: int) -> dict[str, History]:
    """Container name -> its history over the last ``seconds`` (containers with no sample are absent)."""
    if not pods:
        return {}
    sel, step = _selector(namespace, pods), subquery_step(seconds)
    per_pod = "sum by (cluster, pod, container)"
    cpu = _by_container(prom.query(
        f"max by (container) (quantile_over_time({CPU_PERCENTILE}, {per_pod} "
        f"(rate(container_cpu_usage_seconds_total{{{sel}}}[{rate_window()}s]))[{seconds}s:{step}s]))"
    ))  # fmt: skip
    memory = _by_container(prom.query(
        f"max by (container) (max_over_time(container_memory_working_set_bytes{{{sel}}}[{seconds}s]))"
    ))  # fmt: skip
    points = _by_container(prom.query(
        f"count_over_time((max by (container) (container_memory_working_set_bytes{{{sel}}}))[{seconds}s:{step}s])"
    ))  # fmt: skip
    return {
        name: History(cpu.get(name), memory.get(name), points.get(name, 0.0) * step) for name in set(cpu) | set(memory)
    }
