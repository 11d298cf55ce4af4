"""The use half of a minute sample: each project container's CPU rate and memory working set from Prometheus, read
when the requests are read, and what a pod is billed by use: OpenCost's max(request, use) per container.

A container Prometheus has not scraped yet (or a minute Prometheus did not answer) counts as its request, so a pod
is never billed below its request and a gap in metrics never lowers a bill. GPUs have no use metric here: billed
at their request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pincompute.errors import Unavailable
from pincompute.quantity import GPU_RESOURCE, parse_cpu, parse_memory
from usage import prom
from usage.poolmodel import Quantity, billable

UseKey = tuple[str, str, str, str]  # cluster, namespace, pod, container


@dataclass(frozen=True)
class Scrape:
    """Use per container (milli-cores, bytes) where both CPU and memory were scraped; ``why`` says when none was."""

    use: dict[UseKey, Quantity] = field(default_factory=dict)
    why: str = ""


def _by_container(series: list[prom.Series]) -> dict[UseKey, float]:
    out = {}
    for s in series:
        lab = s.labels
        if s.points:
            out[(lab.get("cluster", ""), lab.get("namespace", ""), lab.get("pod", ""), lab.get("container", ""))] = (
                s.points[-1][1]
            )
    return out


def scrape() -> Scrape:
    """Two instant queries over every project namespace (the use pages' expressions, cached per scrape interval)."""
    if not prom.configured():
        return Scrape(why="PROMETHEUS_URL is not set")
    by = "sum by (cluster, namespace, pod, container)"
    sel = f'namespace=~{prom.quote("proj-.+")}, container!=""'
    window = 4 * prom.scrape_seconds()  # as usage.use.rate_window: a missed scrape does not blank a container
    try:
        cpu = _by_container(prom.query(f"{by} (rate(container_cpu_usage_seconds_total{{{sel}}}[{window}s]))"))
        memory = _by_container(prom.query(f"{by} (container_memory_working_set_bytes{{{sel}}})"))
    except Unavailable as exc:
        return Scrape(why=str(exc))
    both = cpu.keys() & memory.keys()
    return Scrape({k: Quantity(round(cpu[k] * 1000), round(memory[k]), 0) for k in both})


@dataclass(frozen=True)
class PodUse:
    """One pod's minute by use: ``use`` (scraped, else the container's request), ``excess`` (what use exceeded the
    request by, summed per container and resource) and whether every container was scraped."""

    use: Quantity
    excess: Quantity
    measured: bool

    def billed(self, request: Quantity) -> Quantity:
        """The pod's minute by use: its request plus what containers used beyond theirs (max(request, use) each)."""
        return request + self.excess


def _container_request(container: dict[str, Any]) -> Quantity:
    req = (container.get("resources") or {}).get("requests") or {}
    return Quantity(
        parse_cpu(req["cpu"]) if "cpu" in req else 0,
        parse_memory(req["memory"]) if "memory" in req else 0,
        int(req.get(GPU_RESOURCE, 0) or 0),
    )


def pod_use(pod: dict[str, Any], cluster: str, scraped: dict[UseKey, Quantity]) -> PodUse:
    meta = pod.get("metadata") or {}
    namespace, name = meta.get("namespace") or "", meta.get("name") or ""
    use, excess, measured = Quantity(), Quantity(), True
    for c in (pod.get("spec") or {}).get("containers") or []:
        request = _container_request(c)
        found = scraped.get((cluster, namespace, name, c.get("name") or ""))
        if found is None:
            measured = False
            use = use + request
            continue
        found = Quantity(found.cpu, found.memory, request.gpu)
        use = use + found
        excess = excess + (billable(request, found) - request)
    return PodUse(use, excess, measured)
