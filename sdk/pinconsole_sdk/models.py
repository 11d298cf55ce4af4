"""The Compute API's representations as dataclasses, one per component of ``/api/schema/`` (each class's ``schema``
names it; ``MODELS`` lists them). ``from_dict`` reads the API's camelCase JSON, ``to_dict`` writes it back exactly (what
``-o json``/``-o yaml`` print); both follow the fields' declared types, and a field's name on the wire is its
camelCase name unless its metadata names another (``field(metadata={"wire": "results"})``).
``tests/sdk/test_sdk_schema.py`` checks every class against the served schema: names, types, required, nullable."""

from __future__ import annotations

import dataclasses
import types
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, Union, get_args, get_origin, get_type_hints

Json = dict[str, Any]

# The kinds the API serves and their plurals, and each kind's short names: a copy of the registry
# (``pincompute.kinds``; the SDK installs alone), which ``tests/sdk/test_cli_kinds.py`` holds equal to it.
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
SHORT_NAMES: dict[str, tuple[str, ...]] = {
    "PinPod": ("ppod",),
    "PinApp": ("papp",),
    "PinScaler": ("pscaler",),
    "PinterestService": ("psvc",),
    "PinterestJobSet": ("pjobset",),
    "PinterestCronJob": ("pcron",),
    "PinterestDaemon": ("pdaemon",),
    "PinterestTrainingJob": ("ptrain",),
}
NATIVE_WORDS = frozenset({"pod", "pods", "po"})
"""What the CLI reads as the native pods (``get pods``), never as a kind."""


def kind_names(kind: str) -> set[str]:
    """Every name a person may type for ``kind``, lower case: the kind and its plural, its short names, and both
    without the ``Pinterest``/``Pin`` prefix (``jobset``, ``jobsets`` for PinterestJobSet) unless that is a native
    word (PinPod's ``pods`` stays the native pods)."""
    singular, plural = kind.lower(), KINDS[kind]
    names = {singular, plural, *SHORT_NAMES[kind]}
    for prefix in ("pinterest", "pin"):
        if singular.startswith(prefix):
            names |= {singular.removeprefix(prefix), plural.removeprefix(prefix)}
            break
    return names - NATIVE_WORDS


_BY_LOWER = {name: kind for kind in KINDS for name in kind_names(kind)}


def canonical_kind(name: str) -> str:
    """``PinterestJobSet`` for ``jobsets``, ``jobset``, ``pjobset``, ``pinterestjobsets`` or any case of them; an
    unknown name is returned as given (the API answers it with a 404 or a 400 naming ``kind``)."""
    return _BY_LOWER.get(name.strip().lower(), name.strip())


C = TypeVar("C", bound="Model")
_UNSET = object()


def wire_name(f: dataclasses.Field[Any]) -> str:
    head, *rest = f.name.split("_")
    return str(f.metadata.get("wire") or head + "".join(part.capitalize() for part in rest))


def _optional(tp: Any) -> tuple[Any, bool]:
    """``(X, True)`` for ``X | None``; ``(tp, False)`` otherwise."""
    if get_origin(tp) in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if len(args) == 1 and len(get_args(tp)) == 2:
            return args[0], True
    return tp, False


def _decode(tp: Any, value: Any) -> Any:
    inner, nullable = _optional(tp)
    if value is None and nullable:
        return None
    origin = get_origin(inner)
    if isinstance(inner, type) and issubclass(inner, Model):
        return inner.from_dict(value if isinstance(value, dict) else {})
    if origin is list:
        return [_decode(get_args(inner)[0], v) for v in value or []]
    if origin is dict:
        return {str(k): _decode(get_args(inner)[1], v) for k, v in (value or {}).items()}
    if inner is str:
        return "" if value is None else str(value)
    if inner is int:
        return int(value or 0)
    if inner is bool:
        return bool(value)
    return value  # Any: as sent (a spec)


def _encode(value: Any) -> Any:
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    return value


class Model:
    """A representation of the API: decoded from and encoded to its JSON by the fields' types."""

    schema: ClassVar[str]  # the component of /api/schema/ it mirrors
    omit_none: ClassVar[frozenset[str]] = frozenset()  # wire names left out when None (not required there)

    @classmethod
    def from_dict(cls: type[C], data: Json) -> C:
        hints = get_type_hints(cls)
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            raw = data.get(wire_name(f), _UNSET)
            if raw is _UNSET and (f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING):
                continue  # absent: the field's default
            values[f.name] = _decode(hints[f.name], None if raw is _UNSET else raw)
        return cls(**values)

    def to_dict(self) -> Json:
        out: Json = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value, name = getattr(self, f.name), wire_name(f)
            if value is None and name in self.omit_none:
                continue
            out[name] = _encode(value)
        return out


@dataclass(frozen=True)
class FieldError(Model):
    schema = "FieldError"

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass(frozen=True)
class ErrorDetail(Model):
    """The one error body's ``error`` (``{"error": {...}}``)."""

    schema = "Error"
    omit_none = frozenset({"more"})

    status: int
    code: str
    message: str
    fields: list[FieldError] = field(default_factory=list)
    request_id: str | None = field(default=None, metadata={"wire": "request_id"})
    more: int | None = None  # problems not listed in ``fields`` (an answer lists at most 20)


@dataclass(frozen=True)
class Admission(Model):
    schema = "Admission"

    admitted: bool | None  # None: no verdict yet
    reason: str = ""
    message: str = ""


@dataclass(frozen=True)
class Condition(Model):
    schema = "Condition"

    type: str
    status: str = ""
    reason: str = ""
    message: str = ""
    last_transition_time: str = ""


@dataclass(frozen=True)
class WorkloadStatus(Model):
    """The status aggregated across shards; ``state`` is the list's ``status`` filter value."""

    schema = "Status"

    state: str
    reason: str = ""
    phase: str = ""
    ready: int = 0
    desired: int | None = None
    clusters: list[str] = field(default_factory=list)
    conditions: list[Condition] | None = None  # None: a list's summary

    omit_none = frozenset({"conditions"})


@dataclass(frozen=True)
class Shard(Model):
    """One member cluster's part of a workload."""

    schema = "Shard"

    cluster: str
    zone: str = ""
    replicas: int = 0
    ready: int = 0
    state: str = ""
    message: str = ""
    last_seen: str | None = None
    unreachable_since: str | None = None


@dataclass(frozen=True)
class WorkloadOwnershipLink(Model):
    schema = "WorkloadOwnershipLink"

    kind: str
    title: str
    url: str


@dataclass(frozen=True)
class WorkloadOwnership(Model):
    """Who owns a workload: its team, on-call contact and links, ``inherited`` naming those that are its project's."""

    schema = "WorkloadOwnership"

    team: str
    oncall: str
    links: list[WorkloadOwnershipLink] = field(default_factory=list)
    inherited: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Workload(Model):
    """A workload as the API represents it: its spec as submitted, its ``version`` (the ETag; what a spec
    change moves), the admission verdict, the status aggregated across shards and each shard. A list's rows are
    summaries unless listed with ``view="full"``: no spec, labels, annotations, conditions or shards."""

    schema = "Workload"
    omit_none = frozenset({"spec", "shards", "labels", "annotations", "ownership"})

    name: str
    kind: str
    project: str
    tier: str
    version: str
    admission: Admission
    status: WorkloadStatus
    # None: a list's summary (list with view="full", or get the one workload)
    spec: Json | None = None
    shards: list[Shard] | None = None
    api_version: str = "pincompute.io/v1"
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    created_at: str | None = None
    deleting: bool = False
    ownership: WorkloadOwnership | None = None  # one workload's answer only, never a list's rows

    def document(self) -> Json:
        """The workload as a document ``apply`` takes back (apiVersion, kind, metadata, spec)."""
        meta: Json = {"name": self.name}
        if self.labels:
            meta["labels"] = dict(self.labels)
        if self.annotations:
            meta["annotations"] = dict(self.annotations)
        return {"apiVersion": self.api_version, "kind": self.kind, "metadata": meta, "spec": self.spec or {}}


@dataclass(frozen=True)
class WorkloadPage(Model):
    """One page of a listing; ``problems`` are what the server could not read (a cache not synced)."""

    schema = "WorkloadPage"

    next: str | None
    problems: list[str] = field(default_factory=list)
    results: list[Workload] = field(default_factory=list)


@dataclass(frozen=True)
class WorkloadRef(Model):
    schema = "WorkloadRef"

    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind}/{self.name}"


@dataclass(frozen=True)
class TimelineEntry(Model):
    schema = "Entry"
    omit_none = frozenset({"workload"})

    at: str
    source: str
    category: str  # "state", "event" or "revision"
    level: str
    title: str
    message: str = ""
    subject: str = ""
    count: int = 1
    workload: WorkloadRef | None = None  # on a project's timeline


@dataclass(frozen=True)
class Timeline(Model):
    schema = "Timeline"

    entries: list[TimelineEntry] = field(metadata={"wire": "results"})
    truncated: bool = False


@dataclass(frozen=True)
class ContainerStreams(Model):
    schema = "ContainerStreams"

    name: str
    shell: str | None  # the terminal's websocket; None for viewers
    logs: str


@dataclass(frozen=True)
class PodDebug(Model):
    """Where to debug a pod: the websocket URLs of its containers' shell and log streams."""

    schema = "PodDebug"

    project: str
    cluster: str
    namespace: str
    pod: str
    phase: str
    can_exec: bool
    containers: list[ContainerStreams]


@dataclass(frozen=True)
class PodContainer(Model):
    schema = "PodContainer"

    name: str
    image: str = ""
    ready: bool = False
    restarts: int = 0
    state: str = "unknown"  # running, waiting, terminated or unknown (no status yet)
    reason: str = ""
    started_at: str | None = None
    shell: str | None = None  # the terminal's websocket; None for viewers
    logs: str = ""


@dataclass(frozen=True)
class Pod(Model):
    """A pod of a project on a member cluster, as the watch caches hold it, with where to debug it."""

    schema = "Pod"

    name: str
    cluster: str
    namespace: str = ""
    workload: str | None = None
    kind: str | None = None
    phase: str = "Unknown"
    status: str = ""  # as kubectl's STATUS column
    ready: str = ""  # "1/2"
    restarts: int = 0
    node: str | None = None
    ip: str | None = None
    started: str | None = None
    debug: str = ""  # the pod discovery endpoint (PodDebug)
    containers: list[PodContainer] = field(default_factory=list)


@dataclass(frozen=True)
class PodPage(Model):
    schema = "PodPage"

    next: str | None
    problems: list[str] = field(default_factory=list)
    results: list[Pod] = field(default_factory=list)


@dataclass(frozen=True)
class ServerVersion(Model):
    """``GET /api/v1/version/``: the portal's version and the API's."""

    schema = "Version"

    version: str
    api: str


@dataclass(frozen=True)
class DebugContainer(Model):
    """A pod's debug container (an ephemeral container beside one of its containers) and its state."""

    schema = "DebugContainer"

    name: str
    target: str
    image: str
    state: str  # waiting, running or terminated
    reason: str
    exit_code: int | None
    shell: str  # the terminal's websocket into it, once running
    status: str  # this document's URL


MODELS: tuple[type[Model], ...] = (
    FieldError,
    ErrorDetail,
    Admission,
    Condition,
    WorkloadStatus,
    Shard,
    WorkloadOwnershipLink,
    WorkloadOwnership,
    Workload,
    WorkloadPage,
    WorkloadRef,
    TimelineEntry,
    Timeline,
    ContainerStreams,
    PodDebug,
    PodContainer,
    Pod,
    PodPage,
    ServerVersion,
    DebugContainer,
)
