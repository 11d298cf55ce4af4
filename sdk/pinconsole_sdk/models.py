"""The Compute API's representations as dataclasses (``components/schemas`` of ``/api/schema/``: Workload,
Admission, Status, Condition, Shard, TimelineEntry, PodDebug). ``from_dict`` reads the API's camelCase JSON;
``to_dict`` writes it back exactly (what ``-o json``/``-o yaml`` print)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]

# The kinds the API serves and their plurals (``workloads.core.kinds``); the API accepts either in a path.
KINDS: dict[str, str] = {
    "PinPod": "pinpods",
    "PinApp": "pinapps",
    "PinScaler": "pinscalers",
    "PinterestService": "pinterestservices",
    "PinterestJobSet": "pinterestjobsets",
    "PinterestCronJob": "pinterestcronjobs",
    "PinterestDaemon": "pinterestdaemons",
    "PinterestTrainingJob": "pinteresttrainingjobs",
}
_BY_LOWER = {**{k.lower(): k for k in KINDS}, **{p: k for k, p in KINDS.items()}}


def canonical_kind(name: str) -> str:
    """``PinApp`` for ``pinapp``, ``pinapps`` or ``PinApp``; an unknown name is returned as given (the API
    answers it with a 404 or a 400 naming ``kind``)."""
    return _BY_LOWER.get(name.strip().lower(), name.strip())


@dataclass(frozen=True)
class FieldError:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass(frozen=True)
class Admission:
    admitted: bool | None  # None: no verdict yet
    reason: str = ""
    message: str = ""

    @classmethod
    def from_dict(cls, data: Json) -> Admission:
        return cls(data.get("admitted"), str(data.get("reason") or ""), str(data.get("message") or ""))

    def to_dict(self) -> Json:
        return {"admitted": self.admitted, "reason": self.reason, "message": self.message}


@dataclass(frozen=True)
class Condition:
    type: str
    status: str = ""
    reason: str = ""
    message: str = ""
    last_transition_time: str = ""

    @classmethod
    def from_dict(cls, data: Json) -> Condition:
        return cls(
            str(data.get("type") or ""),
            str(data.get("status") or ""),
            str(data.get("reason") or ""),
            str(data.get("message") or ""),
            str(data.get("lastTransitionTime") or ""),
        )

    def to_dict(self) -> Json:
        return {
            "type": self.type,
            "status": self.status,
            "reason": self.reason,
            "message": self.message,
            "lastTransitionTime": self.last_transition_time,
        }


@dataclass(frozen=True)
class WorkloadStatus:
    """The status aggregated across shards; ``state`` is the list's ``status`` filter value."""

    state: str
    reason: str = ""
    phase: str = ""
    ready: int = 0
    desired: int | None = None
    clusters: list[str] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: Json) -> WorkloadStatus:
        return cls(
            state=str(data.get("state") or ""),
            reason=str(data.get("reason") or ""),
            phase=str(data.get("phase") or ""),
            ready=int(data.get("ready") or 0),
            desired=data.get("desired"),
            clusters=[str(c) for c in data.get("clusters") or []],
            conditions=[Condition.from_dict(c) for c in data.get("conditions") or []],
        )

    def to_dict(self) -> Json:
        return {
            "state": self.state,
            "reason": self.reason,
            "phase": self.phase,
            "ready": self.ready,
            "desired": self.desired,
            "clusters": list(self.clusters),
            "conditions": [c.to_dict() for c in self.conditions],
        }


@dataclass(frozen=True)
class Shard:
    """One member cluster's part of a workload."""

    cluster: str
    zone: str = ""
    replicas: int | None = None
    ready: int = 0
    state: str = ""
    message: str = ""
    last_seen: str | None = None
    unreachable_since: str | None = None

    @classmethod
    def from_dict(cls, data: Json) -> Shard:
        return cls(
            cluster=str(data.get("cluster") or ""),
            zone=str(data.get("zone") or ""),
            replicas=data.get("replicas"),
            ready=int(data.get("ready") or 0),
            state=str(data.get("state") or ""),
            message=str(data.get("message") or ""),
            last_seen=data.get("lastSeen"),
            unreachable_since=data.get("unreachableSince"),
        )

    def to_dict(self) -> Json:
        return {
            "cluster": self.cluster,
            "zone": self.zone,
            "replicas": self.replicas,
            "ready": self.ready,
            "state": self.state,
            "message": self.message,
            "lastSeen": self.last_seen,
            "unreachableSince": self.unreachable_since,
        }


@dataclass(frozen=True)
class Workload:
    """A workload as the API represents it: its spec as submitted, its ``version`` (the ETag; what a spec
    change moves), the admission verdict, the status aggregated across shards and each shard."""

    name: str
    kind: str
    project: str
    tier: str
    spec: Json
    version: str
    admission: Admission
    status: WorkloadStatus
    shards: list[Shard] = field(default_factory=list)
    api_version: str = "pincompute.io/v1"
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    created_at: str | None = None
    deleting: bool = False

    @classmethod
    def from_dict(cls, data: Json) -> Workload:
        return cls(
            name=str(data["name"]),
            kind=str(data["kind"]),
            project=str(data.get("project") or ""),
            tier=str(data.get("tier") or ""),
            spec=dict(data.get("spec") or {}),
            version=str(data.get("version") or ""),
            admission=Admission.from_dict(data.get("admission") or {}),
            status=WorkloadStatus.from_dict(data.get("status") or {}),
            shards=[Shard.from_dict(s) for s in data.get("shards") or []],
            api_version=str(data.get("apiVersion") or ""),
            labels=dict(data.get("labels") or {}),
            annotations=dict(data.get("annotations") or {}),
            created_at=data.get("createdAt"),
            deleting=bool(data.get("deleting")),
        )

    def to_dict(self) -> Json:
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "name": self.name,
            "project": self.project,
            "tier": self.tier,
            "labels": dict(self.labels),
            "annotations": dict(self.annotations),
            "spec": self.spec,
            "version": self.version,
            "admission": self.admission.to_dict(),
            "status": self.status.to_dict(),
            "shards": [s.to_dict() for s in self.shards],
            "createdAt": self.created_at,
            "deleting": self.deleting,
        }

    def document(self) -> Json:
        """The workload as a document ``apply`` takes back (apiVersion, kind, metadata, spec)."""
        meta: Json = {"name": self.name}
        if self.labels:
            meta["labels"] = dict(self.labels)
        if self.annotations:
            meta["annotations"] = dict(self.annotations)
        return {"apiVersion": self.api_version, "kind": self.kind, "metadata": meta, "spec": self.spec}


@dataclass(frozen=True)
class TimelineEntry:
    at: str
    source: str
    category: str  # "state" or "event"
    level: str
    title: str
    message: str = ""
    subject: str = ""
    count: int = 1
    workload: tuple[str, str] | None = None  # (kind, name) on a project's timeline

    @classmethod
    def from_dict(cls, data: Json) -> TimelineEntry:
        ref = data.get("workload")
        return cls(
            at=str(data.get("at") or ""),
            source=str(data.get("source") or ""),
            category=str(data.get("category") or ""),
            level=str(data.get("level") or ""),
            title=str(data.get("title") or ""),
            message=str(data.get("message") or ""),
            subject=str(data.get("subject") or ""),
            count=int(data.get("count") or 1),
            workload=(str(ref["kind"]), str(ref["name"])) if isinstance(ref, dict) else None,
        )

    def to_dict(self) -> Json:
        out: Json = {
            "at": self.at,
            "source": self.source,
            "category": self.category,
            "level": self.level,
            "title": self.title,
            "message": self.message,
            "subject": self.subject,
            "count": self.count,
        }
        if self.workload is not None:
            out["workload"] = {"kind": self.workload[0], "name": self.workload[1]}
        return out


@dataclass(frozen=True)
class Timeline:
    entries: list[TimelineEntry]
    truncated: bool = False

    @classmethod
    def from_dict(cls, data: Json) -> Timeline:
        return cls([TimelineEntry.from_dict(e) for e in data.get("results") or []], bool(data.get("truncated")))

    def to_dict(self) -> Json:
        return {"results": [e.to_dict() for e in self.entries], "truncated": self.truncated}


@dataclass(frozen=True)
class ContainerStreams:
    name: str
    shell: str | None  # the terminal's websocket; None for viewers
    logs: str


@dataclass(frozen=True)
class PodDebug:
    """Where to debug a pod: the websocket URLs of its containers' shell and log streams."""

    project: str
    cluster: str
    namespace: str
    pod: str
    phase: str
    can_exec: bool
    containers: list[ContainerStreams]

    @classmethod
    def from_dict(cls, data: Json) -> PodDebug:
        return cls(
            project=str(data.get("project") or ""),
            cluster=str(data.get("cluster") or ""),
            namespace=str(data.get("namespace") or ""),
            pod=str(data.get("pod") or ""),
            phase=str(data.get("phase") or ""),
            can_exec=bool(data.get("canExec")),
            containers=[
                ContainerStreams(str(c["name"]), c.get("shell"), str(c.get("logs") or ""))
                for c in data.get("containers") or []
            ],
        )
