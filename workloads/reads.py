"""Reading workloads for the pages, from the watch caches only (never an apiserver per request).

A workload is its one object on the host (``clusters.runtime.host_cache``): admission, placement and the
aggregated status of its shards are in its status. One workload's detail adds what the members' caches
hold for it (its pods per cluster) and its ControllerRevisions on the host.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from clusters import runtime
from clusters.health import not_synced
from pincompute.federation.revisions import revision_selector
from pincompute.kinds import KINDS, KindInfo
from pincompute.labels import KIND_LABEL, WORKLOAD_LABEL
from pincompute.status import condition_of as condition
from pincompute.tiers import Tier
from projects.models import Project
from workloads.host import version_of
from workloads.memo import VersionMemo

Obj = dict[str, Any]

# The statuses a row can have, in the order the filter offers them: (value, label, badge class).
STATUSES: tuple[tuple[str, str, str], ...] = (
    ("waiting", "Waiting", "queued"),
    ("running", "Running", "running"),
    ("progressing", "Progressing", "progressing"),
    ("degraded", "Degraded", "degraded"),
    ("unschedulable", "Unschedulable", "failed"),
    ("invalid", "Invalid", "error"),
    ("succeeded", "Succeeded", "succeeded"),
    ("paused", "Paused", "paused"),
    ("stopped", "Stopped", "suspended"),
    ("deleting", "Deleting", "deleting"),
    ("unknown", "Unknown", "unknown"),
)
_BADGE = {value: badge for value, _, badge in STATUSES}
_LABEL = {value: label for value, label, _ in STATUSES}
NOT_DECIDED = "waiting for the federation's admission"


@dataclass(frozen=True)
class Row:
    """One host workload as the list shows it."""

    project: str
    namespace: str
    kind: str
    title: str
    name: str
    tier: str
    created: str
    phase: str
    status: str  # one of STATUSES' values
    reason: str  # why it waits / what is wrong ("" when fine)
    admitted: bool | None  # None: no verdict yet
    ready: int
    desired: int | None
    clusters: tuple[str, ...]
    version: str

    @property
    def status_label(self) -> str:
        return _LABEL[self.status]

    @property
    def badge(self) -> str:
        return _BADGE[self.status]

    @property
    def tier_label(self) -> str:
        try:
            return Tier(self.tier).label
        except ValueError:
            return self.tier.lower()


def status_of(obj: Obj) -> tuple[str, str, bool | None]:
    """(status, reason, admitted) of a host workload object."""
    status = obj.get("status") or {}
    spec = obj.get("spec") or {}
    operations = spec.get("operations") or {}
    admitted_cond = condition(obj, "Admitted")
    admitted = None if not admitted_cond else admitted_cond.get("status") == "True"
    phase = str(status.get("phase") or "")
    if (obj.get("metadata") or {}).get("deletionTimestamp"):
        return "deleting", "the federation removes its shards from every member first", admitted
    if phase == "Invalid":
        return "invalid", str(condition(obj, "Scheduled").get("message") or ""), admitted
    if admitted is not True:
        why = str(admitted_cond.get("message") or admitted_cond.get("reason") or NOT_DECIDED)
        return "waiting", why, admitted
    if phase == "Unschedulable":
        return "unschedulable", str(condition(obj, "Scheduled").get("message") or ""), admitted
    if operations.get("stopped"):
        return "stopped", "", admitted
    if operations.get("paused"):
        return "paused", "", admitted
    if condition(obj, "Degraded").get("status") == "True":
        return "degraded", str(condition(obj, "Degraded").get("message") or ""), admitted
    if phase == "Queued":
        return "waiting", str(condition(obj, "Scheduled").get("message") or NOT_DECIDED), admitted
    simple = {"Running": "running", "Succeeded": "succeeded", "Progressing": "progressing", "Unknown": "unknown"}
    if phase in simple:
        reason = str(condition(obj, "Ready").get("message") or "") if phase != "Running" else ""
        return simple[phase], reason, admitted
    return "progressing", "admitted; not placed yet", admitted


_ROWS: VersionMemo[Row] = VersionMemo()


def row_of(obj: Obj, info: KindInfo, project: str) -> Row:
    """The list's row of a host object (remembered by its version: a page filters and shows the same rows)."""
    return _ROWS.get(obj, (info.kind, project), lambda: _row_of(obj, info, project))


def _row_of(obj: Obj, info: KindInfo, project: str) -> Row:
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    state, reason, admitted = status_of(obj)
    if info.scalable and spec.get("replicas") is not None:
        desired: int | None = int(spec["replicas"])
    elif status.get("replicas") is not None:
        desired = int(status["replicas"])
    else:
        desired = None
    shards = [str(s.get("cluster")) for s in status.get("shards") or [] if s.get("cluster")]
    placed = [str(p.get("cluster")) for p in (status.get("placement") or {}).get("clusters") or [] if p.get("cluster")]
    return Row(
        project=project,
        namespace=str(meta.get("namespace") or ""),
        kind=info.kind,
        title=info.title,
        name=str(meta.get("name") or ""),
        tier=str(spec.get("tier") or info.default_tier.value),
        created=str(meta.get("creationTimestamp") or ""),
        phase=str(status.get("phase") or ""),
        status=state,
        reason=reason,
        admitted=admitted,
        ready=int(status.get("readyReplicas") or 0),
        desired=desired,
        clusters=tuple(dict.fromkeys(placed or shards)),
        version=version_of(obj),
    )


MAX_NAME_FILTER = 63  # a Kubernetes name is at most this long


@dataclass(frozen=True)
class Filters:
    project: str = ""
    kind: str = ""
    tier: str = ""
    status: str = ""
    name: str = ""  # a part of the name, any case

    @classmethod
    def from_query(cls, query: Any) -> Filters:
        kind = query.get("kind", "")
        tier = query.get("tier", "")
        status = query.get("status", "")
        return cls(
            project=str(query.get("project", ""))[:100],
            kind=kind if kind in KINDS else "",
            tier=tier if tier in {t.value for t in Tier} else "",
            status=status if status in _LABEL else "",
            name=str(query.get("name", "")).strip().lower()[:MAX_NAME_FILTER],
        )

    def matches(self, row: Row) -> bool:
        return (
            (not self.kind or row.kind == self.kind)
            and (not self.tier or row.tier == self.tier)
            and (not self.status or row.status == self.status)
            and self.name in row.name.lower()
        )

    @property
    def active(self) -> bool:
        return bool(self.project or self.kind or self.tier or self.status or self.name)


@dataclass
class Listing:
    rows: list[Row] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    total: int = 0  # before the filters


def host_problems(host: Any) -> list[str]:
    if host is None:
        return ["No host cluster is registered: workloads are persisted there first."]
    if not host.synced:
        return [not_synced("the host", host) + "; the list may be incomplete"]
    return []


def list_workloads(projects: Iterable[Project], filters: Filters | None = None) -> Listing:
    """A row per host workload of ``projects`` (already scoped to the user), filtered."""
    filters = filters or Filters()
    host = runtime.host_cache()
    listing = Listing(problems=host_problems(host))
    if host is None:
        return listing
    for project in projects:
        if filters.project and project.name != filters.project:
            continue
        for info in KINDS.values():
            for obj in host.list(info.plural, namespace=project.namespace):
                row = row_of(obj, info, project.name)
                listing.total += 1
                if filters.matches(row):
                    listing.rows.append(row)
    listing.rows.sort(key=lambda r: (r.project, r.kind, r.name))
    return listing


# --- one workload --------------------------------------------------------------------------------------


def parse_time(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        return parse_datetime(str(value))
    except ValueError:
        return None


def age(value: Any, now: datetime | None = None) -> str:
    """'12s', '4m', '3h', '2d' since an RFC 3339 time ('' when unknown)."""
    moment = parse_time(value)
    if moment is None:
        return ""
    seconds = max(0, int(((now or timezone.now()) - moment).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


STALE_SECONDS = 60


@dataclass(frozen=True)
class Shard:
    cluster: str
    zone: str
    replicas: int
    ready: int
    state: str
    message: str
    phase: str
    last_seen: str
    seen_age: str
    stale: bool
    unreachable_since: str
    shard_index: int | None


def shards_of(obj: Obj, now: datetime | None = None) -> list[Shard]:
    now = now or timezone.now()
    status = obj.get("status") or {}
    index = {str(p.get("cluster")): p.get("shardIndex") for p in (status.get("placement") or {}).get("clusters") or []}
    rows = []
    for s in status.get("shards") or []:
        seen = parse_time(s.get("lastSeen"))
        rows.append(
            Shard(
                cluster=str(s.get("cluster") or ""),
                zone=str(s.get("zone") or ""),
                replicas=int(s.get("replicas") or 0),
                ready=int(s.get("readyReplicas") or 0),
                state=str(s.get("state") or "Unknown"),
                message=str(s.get("message") or ""),
                phase=str(s.get("phase") or ""),
                last_seen=str(s.get("lastSeen") or ""),
                seen_age=age(s.get("lastSeen"), now),
                stale=seen is None or (now - seen).total_seconds() > STALE_SECONDS,
                unreachable_since=str(s.get("unreachableSince") or ""),
                shard_index=index.get(str(s.get("cluster"))),
            )
        )
    return rows


@dataclass(frozen=True)
class Pod:
    cluster: str
    namespace: str
    name: str
    phase: str
    ready: str  # "1/2"
    restarts: int
    node: str
    containers: tuple[str, ...]
    created: str


def pod_state(obj: Obj) -> str:
    """What kubectl's STATUS column says: Terminating, a waiting container's reason, else the phase."""
    status = obj.get("status") or {}
    if (obj.get("metadata") or {}).get("deletionTimestamp"):
        return "Terminating"
    for cs in status.get("containerStatuses") or []:
        waiting = (cs.get("state") or {}).get("waiting") or {}
        if waiting.get("reason"):
            return str(waiting["reason"])
    return str(status.get("phase") or "Unknown")


def ready_count(obj: Obj) -> tuple[int, int]:
    """(ready containers, containers)."""
    statuses = (obj.get("status") or {}).get("containerStatuses") or []
    return sum(1 for c in statuses if c.get("ready")), len((obj.get("spec") or {}).get("containers") or [])


def restarts_of(obj: Obj) -> int:
    return sum(int(c.get("restartCount") or 0) for c in (obj.get("status") or {}).get("containerStatuses") or [])


def _pod(cluster: str, obj: Obj) -> Pod:
    meta, spec = obj.get("metadata") or {}, obj.get("spec") or {}
    containers = tuple(str(c.get("name")) for c in spec.get("containers") or [])
    ready, total = ready_count(obj)
    return Pod(
        cluster=cluster,
        namespace=str(meta.get("namespace") or ""),
        name=str(meta.get("name") or ""),
        phase=pod_state(obj),
        ready=f"{ready}/{total}",
        restarts=restarts_of(obj),
        node=str(spec.get("nodeName") or ""),
        containers=containers,
        created=str(meta.get("creationTimestamp") or ""),
    )


def pods_of(kind: str, namespace: str, name: str) -> tuple[dict[str, list[Pod]], list[str]]:
    """The workload's pods per member cluster (labelled with its name and kind), and cache problems."""
    found: dict[str, list[Pod]] = {}
    problems: list[str] = []
    selector = {WORKLOAD_LABEL: name, KIND_LABEL: kind}
    for cluster, cache in sorted(runtime.member_caches().items()):
        if not cache.synced:
            problems.append(not_synced(cluster, cache))
        pods = [_pod(cluster, p) for p in cache.list("pods", namespace=namespace, label_selector=selector)]
        if pods:
            found[cluster] = sorted(pods, key=lambda p: p.name)
    return found, problems


@dataclass(frozen=True)
class Revision:
    name: str
    number: int
    created: str
    spec: Obj
    current: bool


def revisions_of(obj: Obj) -> list[Revision]:
    """The host object's ControllerRevisions, newest first (only the ones it owns: a re-created workload
    of the same name does not show its predecessor's history)."""
    host = runtime.host_cache()
    if host is None:
        return []
    meta = obj.get("metadata") or {}
    uid = meta.get("uid")
    current = str((obj.get("status") or {}).get("currentRevision") or "")
    found = []
    selector = revision_selector(str(obj.get("kind")), str(meta.get("name")))
    for rev in host.list("controllerrevisions", namespace=str(meta.get("namespace")), label_selector=selector):
        rmeta = rev.get("metadata") or {}
        owners = [o.get("uid") for o in rmeta.get("ownerReferences") or []]
        if uid and owners and uid not in owners:
            continue
        found.append(
            Revision(
                name=str(rmeta.get("name")),
                number=int(rev.get("revision") or 0),
                created=str(rmeta.get("creationTimestamp") or ""),
                spec=((rev.get("data") or {}).get("spec")) or {},
                current=str(rmeta.get("name")) == current,
            )
        )
    return sorted(found, key=lambda r: r.number, reverse=True)
