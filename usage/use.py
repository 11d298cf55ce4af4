"""What containers really use against what they request and may use: the read behind the use pages, the API and
``pincompute top``.

Use comes from Prometheus (``usage.prom``: the kubelet's ``container_cpu_usage_seconds_total`` as a rate and
``container_memory_working_set_bytes``); requests, limits, tier and workload from the members' watch caches (never
an apiserver). A container Prometheus has not seen yet has no use (``None``): it is listed, never counted as idle.
Waste is what a container requests and does not use (never negative), in cores, GiB and money per hour at its
tier's prices (``usage.prices``). Rows roll up by pod, workload and project, and sort by any figure.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from base.errors import FieldError, Invalid
from clusters import runtime
from pincompute.quantity import parse_cpu, parse_memory
from pincompute.tiers import DEFAULT_TIER
from projects.access import visible_project
from projects.models import Project
from usage import prom
from usage.prices import current_prices
from usage.sampling import TIER_OF_CLASS, workload_of

GIB = float(1 << 30)
LEVELS = ("container", "pod", "workload", "project")
SORTS = ("waste_cost", "cpu_waste", "memory_waste", "cpu_use", "memory_use", "cpu_request", "memory_request")
DEFAULT_LIMIT, MAX_LIMIT = 50, 1000
Key = tuple[str, str, str, str]  # cluster, namespace, pod, container


@dataclass
class Use:
    """One container, or the sum over a pod, workload or project. Cores and bytes; ``None`` use: not scraped yet."""

    name: str
    project: str
    cluster: str = ""
    workload: str = ""
    pod: str = ""
    container: str = ""
    tier: str = ""
    containers: int = 0
    cpu_use: float | None = None
    memory_use: float | None = None
    cpu_request: float = 0.0
    memory_request: float = 0.0
    cpu_limit: float | None = None  # None: some container has no limit
    memory_limit: float | None = None
    cpu_waste: float = 0.0
    memory_waste: float = 0.0
    waste_cost: Decimal = Decimal(0)  # per hour
    measured: bool = field(default=False)

    def gib(self) -> dict[str, float | None]:
        """The memory figures in GiB (pages and the CLI show GiB; the API gives bytes too)."""
        figures = {"use": self.memory_use, "request": self.memory_request, "limit": self.memory_limit,
                   "waste": self.memory_waste}  # fmt: skip
        return {k: None if v is None else round(v / GIB, 3) for k, v in figures.items()}

    def as_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out.update({f"memory_{k}_gib": v for k, v in self.gib().items()})
        out["waste_cost"] = str(self.waste_cost.quantize(Decimal("0.000001")))
        return out


def _add(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


@functools.lru_cache(maxsize=4096)
def _cores(quantity: str) -> float:
    """Parsed once per distinct quantity: 10k pods ask for a few dozen distinct sizes."""
    return parse_cpu(quantity) / 1000


@functools.lru_cache(maxsize=4096)
def _bytes(quantity: str) -> float:
    return float(parse_memory(quantity))


def _container_rows(pod: dict[str, Any], cluster: str, project: str) -> list[Use]:
    meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
    tier = TIER_OF_CLASS.get(spec.get("priorityClassName") or "", DEFAULT_TIER.label)
    workload = workload_of(meta.get("labels") or {})
    rows = []
    for c in spec.get("containers") or []:
        res = c.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        rows.append(Use(
            name=f"{meta.get('name')}/{c.get('name')}", project=project, cluster=cluster, workload=workload,
            pod=meta.get("name") or "", container=c.get("name") or "", tier=tier, containers=1,
            cpu_request=_cores(req["cpu"]) if "cpu" in req else 0.0,
            memory_request=_bytes(req["memory"]) if "memory" in req else 0.0,
            cpu_limit=_cores(lim["cpu"]) if "cpu" in lim else None,
            memory_limit=_bytes(lim["memory"]) if "memory" in lim else None,
        ))  # fmt: skip
    return rows


def running_containers(projects: Iterable[Project]) -> dict[Key, Use]:
    """Every container of the projects' Running pods, from the members' watch caches."""
    by_namespace = {p.namespace: p.name for p in projects}
    out: dict[Key, Use] = {}
    for cluster, cache in sorted(runtime.member_caches().items()):
        for namespace, project in by_namespace.items():
            for pod in cache.list("pods", namespace):
                if (pod.get("status") or {}).get("phase") != "Running":
                    continue
                for row in _container_rows(pod, cluster, project):
                    out[(cluster, namespace, row.pod, row.container)] = row
    return out


def _selector(namespaces: list[str]) -> str:
    if len(namespaces) == 1:
        return f"namespace={prom.quote(namespaces[0])}"
    return f"namespace=~{prom.quote('proj-.+')}"  # every project: one query, filtered by the caches' containers


def rate_window() -> int:
    """Four scrape intervals: a rate needs two samples, and a missed scrape should not blank a container."""
    return 4 * prom.scrape_seconds()


def measure(rows: dict[Key, Use], namespaces: list[str]) -> None:
    """Fill each row's use from Prometheus (two instant queries), then its waste and its cost per hour."""
    if not namespaces:
        return
    by = "sum by (cluster, namespace, pod, container)"
    sel = _selector(namespaces) + ', container!=""'
    cpu = prom.query(f"{by} (rate(container_cpu_usage_seconds_total{{{sel}}}[{rate_window()}s]))")
    memory = prom.query(f"{by} (container_memory_working_set_bytes{{{sel}}})")
    prices = current_prices()
    for series_list, attr in ((cpu, "cpu_use"), (memory, "memory_use")):
        for s in series_list:
            lab = s.labels
            row = rows.get((lab.get("cluster", ""), lab.get("namespace", ""), lab.get("pod", ""),
                            lab.get("container", "")))  # fmt: skip
            if row is not None and s.points:
                setattr(row, attr, s.points[-1][1])
    for row in rows.values():
        row.measured = row.cpu_use is not None and row.memory_use is not None
        if row.measured:
            row.cpu_waste = max(row.cpu_request - (row.cpu_use or 0.0), 0.0)
            row.memory_waste = max(row.memory_request - (row.memory_use or 0.0), 0.0)
            row.waste_cost = (
                Decimal(str(row.cpu_waste)) * prices[(row.tier, "cpu")]
                + Decimal(str(row.memory_waste / GIB)) * prices[(row.tier, "memory")]
            )


def roll_up(rows: Iterable[Use], level: str) -> list[Use]:
    """Sum containers by pod, workload or project (a sum has use only when each of its containers has)."""
    if level == "container":
        return list(rows)
    groups: dict[tuple[str, ...], Use] = {}
    key_of = {
        "pod": lambda r: (r.project, r.cluster, r.pod),
        "workload": lambda r: (r.project, r.workload),
        "project": lambda r: (r.project,),
    }[level]
    for r in rows:
        key = key_of(r)
        g = groups.get(key)
        if g is None:
            name = {"pod": r.pod, "workload": r.workload or "(no workload)", "project": r.project}[level]
            g = groups[key] = Use(
                name=name, project=r.project, cluster=r.cluster if level == "pod" else "",
                workload=r.workload if level != "project" else "", pod=r.pod if level == "pod" else "",
                tier=r.tier, cpu_use=0.0, memory_use=0.0, cpu_limit=0.0, memory_limit=0.0,
            )  # fmt: skip
        g.containers += 1
        g.tier = g.tier if g.tier == r.tier else "mixed"
        g.cpu_use, g.memory_use = _add(g.cpu_use, r.cpu_use), _add(g.memory_use, r.memory_use)
        g.cpu_limit, g.memory_limit = _add(g.cpu_limit, r.cpu_limit), _add(g.memory_limit, r.memory_limit)
        g.cpu_request += r.cpu_request
        g.memory_request += r.memory_request
        g.cpu_waste += r.cpu_waste
        g.memory_waste += r.memory_waste
        g.waste_cost += r.waste_cost
    for g in groups.values():
        g.measured = g.cpu_use is not None and g.memory_use is not None
    return list(groups.values())


@dataclass(frozen=True)
class UseQuery:
    level: str
    sort: str
    limit: int
    workload: str
    pod: str


def parse_use_query(params: Any, *, default_level: str) -> UseQuery:
    """``level``, ``sort``, ``limit``, ``workload`` and ``pod`` narrowing; every bad value named, nothing read."""
    errors = []
    level = params.get("level") or default_level
    if level not in LEVELS:
        errors.append(FieldError("level", f"Use one of {', '.join(LEVELS)}."))
    sort = params.get("sort") or "waste_cost"
    if sort not in SORTS:
        errors.append(FieldError("sort", f"Use one of {', '.join(SORTS)}."))
    raw_limit = str(params.get("limit") or DEFAULT_LIMIT)
    limit = int(raw_limit) if raw_limit.isdigit() else -1
    if not 1 <= limit <= MAX_LIMIT:
        errors.append(FieldError("limit", f"Give a whole number from 1 to {MAX_LIMIT}."))
    workload, pod = str(params.get("workload") or ""), str(params.get("pod") or "")
    for name, value in (("workload", workload), ("pod", pod)):
        if len(value) > 300 or "\x00" in value:
            errors.append(FieldError(name, "At most 300 characters, no NUL."))
    if errors:
        raise Invalid(fields=errors)
    return UseQuery(level, sort, limit, workload, pod)


def ranked(rows: list[Use], sort: str, limit: int) -> list[Use]:
    """Largest first; containers with no use yet last."""
    return sorted(rows, key=lambda r: (r.measured, getattr(r, sort) or 0), reverse=True)[:limit]


@dataclass(frozen=True)
class UseReport:
    rows: list[Use]  # at the query's level, ranked, at most ``limit``
    total: Use  # over every container in scope
    query: UseQuery
    scrape_seconds: int
    pods: list[str]  # the running pods in scope


def _report(projects: list[Project], q: UseQuery, name: str) -> UseReport:
    """The report, computed once per scrape interval for the same projects and query in this process (the caches
    and Prometheus are read again in the next interval)."""
    interval = prom.scrape_seconds()
    scope = hashlib.sha256(repr((sorted(p.pk for p in projects), q, name)).encode()).hexdigest()
    key = f"use:{int(time.time() // interval)}:{scope}"
    found: UseReport | None = reports.get(key)
    if found is None:
        found = reports.put(key, _compute(projects, q, name))
    return found


def _compute(projects: list[Project], q: UseQuery, name: str) -> UseReport:
    rows = running_containers(projects)
    measure(rows, [p.namespace for p in projects])
    scoped = [r for r in rows.values() if q.workload in ("", r.workload) and q.pod in ("", r.pod)]
    total = roll_up(scoped, "project")
    whole = total[0] if len(total) == 1 else Use(name=name, project=name)
    whole.name = name
    pods = sorted({r.pod for r in scoped})
    return UseReport(ranked(roll_up(scoped, q.level), q.sort, q.limit), whole, q, prom.scrape_seconds(), pods)


reports = prom.Memo(32)


def project_use(actor: Any, name: str, params: Any) -> tuple[Project, UseReport]:
    """One project's containers (any member may read); narrowed to a workload or a pod when asked."""
    project = visible_project(actor, name)
    q = parse_use_query(params, default_level="workload")
    return project, _report([project], q, project.name)


def fleet_use(actor: Any, params: Any) -> UseReport:
    """Every project the caller sees (platform admins: all): the most over-requested first."""
    q = parse_use_query(params, default_level="workload")
    return _report(list(Project.objects.visible_to(actor)), q, "all projects")
