"""The preview's answer (``Client.preview``: ``POST /api/v1/projects/<project>/workloads/preview/``) as dataclasses,
one per component of ``/api/schema/``, read and written as ``pinconsole_sdk.models`` does;
``tests/sdk/test_sdk_schema.py`` checks each against the served schema."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pinconsole_sdk.models import FieldError, Json, Model


@dataclass(frozen=True)
class PreviewShard(Model):
    schema = "PreviewShard"

    cluster: str
    zone: str = ""
    region: str = ""
    shard_index: int = 0
    shard_count: int = 1
    replicas: int | None = None  # None: the spec's own count


@dataclass(frozen=True)
class PreviewCluster(Model):
    """A member cluster as placement judged it: chosen (with its replicas), or why a filter refused it."""

    schema = "PreviewCluster"

    name: str
    zone: str = ""
    region: str = ""
    chosen: bool = False
    replicas: int | None = None
    score: float | None = None
    reasons: list[str] = field(default_factory=list)
    healthy: bool = True


@dataclass(frozen=True)
class PreviewPlacement(Model):
    schema = "PreviewPlacement"

    shards: list[PreviewShard]
    clusters: list[PreviewCluster]
    problem: str = ""
    kept: bool = False


@dataclass(frozen=True)
class InjectedItem(Model):
    schema = "InjectedItem"

    path: str
    summary: str


@dataclass(frozen=True)
class InjectionReport(Model):
    schema = "InjectionReport"

    added: list[InjectedItem] = field(default_factory=list)
    kept: list[InjectedItem] = field(default_factory=list)


@dataclass(frozen=True)
class NativeObject(Model):
    """An object a member cluster would get; ``injected``: paths into ``object`` of what the platform added."""

    schema = "NativeObject"

    kind: str
    name: str
    object: Json
    injected: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ClusterObjects(Model):
    schema = "ClusterObjects"

    cluster: str
    zone: str
    replicas: int | None
    objects: list[NativeObject]
    injection: InjectionReport | None


@dataclass(frozen=True)
class QuotaFitRow(Model):
    """One tier and resource: amounts in ``unit`` (millicores, bytes, GPUs, pods); ``text`` as people read them."""

    schema = "QuotaFitRow"

    tier: str
    resource: str
    unit: str
    admitted: int
    waiting: int
    this: int
    granted: int | None  # None: no cap
    over: bool
    text: dict[str, str]


@dataclass(frozen=True)
class QuotaFit(Model):
    schema = "QuotaFit"

    tier: str
    verdict: str  # fits, waits or never
    messages: list[str]
    waiting_count: int
    rows: list[QuotaFitRow]

    def for_tier(self, tier: str | None = None) -> list[QuotaFitRow]:
        """The rows of ``tier`` (default: the workload's)."""
        return [r for r in self.rows if r.tier == (tier or self.tier)]


@dataclass(frozen=True)
class RoomNow(Model):
    """Whether a node takes one of its pods now: ``later``, per member, why none does (it waits, or never starts
    there); ``largest``, the tier's largest pod that fits now per member."""

    schema = "RoomNow"

    later: list[str]
    largest: list[str]


@dataclass(frozen=True)
class FieldChange(Model):
    schema = "FieldChange"

    path: str
    before: Any | None  # None: absent
    after: Any | None


@dataclass(frozen=True)
class ObjectChange(Model):
    schema = "ObjectChange"

    key: str
    change: str  # added, removed or changed
    changes: list[FieldChange] = field(default_factory=list)


@dataclass(frozen=True)
class PreviewDiff(Model):
    schema = "PreviewDiff"

    version: str
    stale: str
    spec: list[FieldChange]
    objects: list[ObjectChange]


@dataclass(frozen=True)
class Refusal(Model):
    schema = "Refusal"

    status: int
    code: str
    message: str
    fields: list[FieldError] = field(default_factory=list)


@dataclass(frozen=True)
class PreviewNetworkPolicy(Model):
    """One of the project's NetworkPolicies (every pod of the project falls under it) and what it admits."""

    schema = "PreviewNetworkPolicy"

    name: str
    admits: list[str]


@dataclass(frozen=True)
class WorkloadPreview(Model):
    """What submitting a document would do: ``action`` (created, configured or unchanged), ``document`` (the object
    the write would make) beside ``live``, placement, each cluster's objects, the quota fit, and ``refusal``."""

    schema = "WorkloadPreview"

    kind: str
    name: str
    project: str
    tier: str
    action: str
    refusal: Refusal | None
    problems: list[str]
    document: Json
    live: Json | None
    diff: PreviewDiff | None
    placement: PreviewPlacement
    clusters: list[ClusterObjects]
    quota: QuotaFit
    network: list[PreviewNetworkPolicy]
    room: RoomNow | None = None  # None: a kind that runs no pods


PREVIEW_MODELS: tuple[type[Model], ...] = (
    PreviewShard,
    PreviewCluster,
    PreviewPlacement,
    InjectedItem,
    InjectionReport,
    NativeObject,
    ClusterObjects,
    QuotaFitRow,
    QuotaFit,
    RoomNow,
    FieldChange,
    ObjectChange,
    PreviewDiff,
    Refusal,
    PreviewNetworkPolicy,
    WorkloadPreview,
)
