"""Pages of the API's lists, from the watch caches in the size of the page (not of the cluster).

The lists are kept in order by the caches' stores (``Store.page``: sorted keys, a bisect to the cursor), so
a page of 100 out of 10k workloads or 100k pods reads about 100 objects. ``workload_page`` gives the rows of
``reads.list_workloads`` (same filters, same order); ``pod_page`` a project's pods on every member cluster.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from clusters import runtime
from clusters.health import not_synced
from pincompute.kinds import KINDS, KindInfo
from pincompute.labels import WORKLOAD_LABEL
from projects.models import Project
from workloads.reads import Filters, Row, host_problems, row_of
from workloads.selectors import Selector

Obj = dict[str, Any]

WorkloadKey = tuple[str, str, str]  # (project, kind, name): the list's order and its cursor
PROJECT_PREFIX = "proj-"  # Project.namespace: the namespaces sort as the project names do


@dataclass
class Page:
    items: list[tuple[Row, Obj]] = field(default_factory=list)  # (row, the cached object) in the list's order
    more: bool = False
    problems: list[str] = field(default_factory=list)


def _after_in(kind: str, after: WorkloadKey | None) -> tuple[str, str] | None:
    """Where a kind's stream starts for ``after``: its own rows of the cursor's project that sort before it
    are behind the cursor (this kind sorts first), or all ahead (this kind sorts later)."""
    if after is None:
        return None
    namespace = PROJECT_PREFIX + after[0]
    if kind == after[1]:
        return (namespace, after[2])
    return (namespace + "\x00", "") if kind < after[1] else (namespace, "")


def workload_page(
    projects: Iterable[Project],
    filters: Filters,
    *,
    cluster: str = "",
    selector: Selector | None = None,
    after: WorkloadKey | None = None,
    limit: int = 100,
) -> Page:
    """A page of the list ``list_workloads`` gives (same rows, same order), after the cursor ``after``.

    Each kind's objects come from the host cache's sorted index (``Store.page``: a bisect to the cursor), at
    most ``limit + 1`` per kind, merged in (project, kind, name) order: the cost is the page's, not the host's.
    """
    host = runtime.host_cache()
    page = Page(problems=host_problems(host))
    if host is None:
        return page
    names = {p.namespace: p.name for p in projects if not filters.project or p.name == filters.project}
    namespaces = sorted(names)

    def keep(info: KindInfo, project: str) -> Callable[[Obj], bool] | None:
        if not (filters.tier or filters.status or cluster or selector):
            return None
        return lambda obj: (
            (not selector or selector.matches((obj.get("metadata") or {}).get("labels") or {}))
            and filters.matches(row := row_of(obj, info, project))
            and (not cluster or cluster in row.clusters)
        )

    def stream(info: KindInfo) -> Iterator[tuple[WorkloadKey, Row, Obj]]:
        """The kind's rows in order, namespace after namespace, one ``Store.page`` at a time (lazily: the merge
        pulls only what the page needs)."""
        start = _after_in(info.kind, after)
        for namespace in namespaces[bisect.bisect_left(namespaces, start[0]) if start else 0 :]:
            project, cursor = names[namespace], start if start and start[0] == namespace else None
            while True:
                objs, more = host.page(info.plural, namespace, after=cursor, limit=limit + 1, where=keep(info, project))
                for obj in objs:
                    row = row_of(obj, info, project)
                    yield (row.project, row.kind, row.name), row, obj
                if not more:
                    break
                cursor = (namespace, str(objs[-1]["metadata"]["name"]))

    kinds = [info for kind, info in sorted(KINDS.items()) if not filters.kind or kind == filters.kind]
    merged = heapq.merge(*(stream(info) for info in kinds), key=lambda item: item[0])
    for _, row, obj in merged:
        if len(page.items) == limit:
            page.more = True
            break
        page.items.append((row, obj))
    return page


POD_PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")
PodKey = tuple[str, str]  # (cluster, name): the pods list's order and its cursor


@dataclass
class PodPage:
    items: list[tuple[str, Obj]] = field(default_factory=list)  # (cluster, cached pod) in (cluster, name) order
    more: bool = False
    problems: list[str] = field(default_factory=list)


def pod_page(
    namespace: str,
    *,
    cluster: str = "",
    workload: str = "",
    phase: str = "",
    selector: Selector | None = None,
    after: PodKey | None = None,
    limit: int = 100,
) -> PodPage:
    """A page of the namespace's pods on every member cluster, in (cluster, name) order after ``after``.

    From the members' caches (``Store.page``: a bisect to the cursor, the workload filter through the label
    index), never a LIST: the cost is the page's, not the cluster's."""
    page = PodPage()
    by_workload = {WORKLOAD_LABEL: workload} if workload else None

    def where(obj: Obj) -> bool:
        labels = (obj.get("metadata") or {}).get("labels") or {}
        return (not phase or (obj.get("status") or {}).get("phase") == phase) and (
            not selector or selector.matches(labels)
        )

    for name, cache in sorted(runtime.member_caches().items()):
        if (cluster and name != cluster) or (after is not None and name < after[0]):
            continue
        if not cache.synced:
            page.problems.append(not_synced(name, cache))
        want = limit - len(page.items)
        cursor = (namespace, after[1]) if after is not None and name == after[0] else None
        objs, _ = cache.page(
            "pods",
            namespace,
            after=cursor,
            limit=want + 1,
            where=where if phase or selector else None,
            label_selector=by_workload,
        )
        page.items += [(name, obj) for obj in objs[:want]]
        if len(objs) > want:
            page.more = True
            break
    return page
