"""The one kind registry: every fact about the PinCompute kinds except their spec schemas.

Two tables, one per purpose. ``KINDS`` holds the eight workload kinds: CRD names (crds.py), the spec
registry (specs/), the operator's watches, the portal's watch caches, the catalog and the test helpers
all read it, so a kind or a plural is spelled exactly once. ``PLATFORM_KINDS`` holds the kinds the
platform writes for itself (on the host: a project's quota object, one object per member cluster):
they get CRDs from the same generator but are no workloads, so nothing that lists workloads sees
them. The spec-specific parts of the workload kinds (schema, cross-field checks, typed builders)
stay in ``specs.KINDS``, keyed by the same kind names.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from pincompute import GROUP, VERSION
from pincompute.tiers import DEFAULT_TIER, Tier


class Category(enum.Enum):
    """What a kind is for, as the catalog groups it."""

    GENERAL = "General purpose compute"
    RUN_TO_FINISH = "Run to finish"
    INFRASTRUCTURE = "Infrastructure services"


class _ApiNames:
    """The REST names a ``pincompute.io`` kind derives from its kind, plural, group and version."""

    kind: str
    plural: str
    group: str
    version: str

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}"

    @property
    def singular(self) -> str:
        return self.kind.lower()

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    @property
    def crd_name(self) -> str:
        return f"{self.plural}.{self.group}"

    @property
    def collection_path(self) -> str:
        """Cluster-wide REST collection, e.g. ``/apis/pincompute.io/v1/pinapps``."""
        return f"/apis/{self.api_version}/{self.plural}"


DEFAULT_LOG_FILES: tuple[str, ...] = ("/var/log/app.log",)
"""Files a pod's container is expected to log to, offered by the portal's file-log picker (a path may be typed too)."""


@dataclass(frozen=True)
class KindInfo(_ApiNames):
    """One workload kind of the ``pincompute.io`` API group."""

    kind: str
    plural: str
    short_names: tuple[str, ...]
    title: str  # the name people say ("Training job")
    category: Category
    description: str  # what it is for and when to pick it
    becomes: str  # the native objects it turns into, as a sentence
    native_kinds: tuple[str, ...]  # every native kind its translation may emit
    default_tier: Tier = DEFAULT_TIER
    runs_pods: bool = True  # False: it only steers other workloads (PinScaler)
    scalable: bool = False  # has the scale subresource (``spec.replicas``)
    fails_over: bool = False  # its replicas leave a lost member by default (``spec.failover``, specs/failover.py)
    log_files: tuple[str, ...] = DEFAULT_LOG_FILES  # file logs the debug page offers (``tail -F`` over exec)
    group: str = GROUP
    version: str = VERSION


class InstalledOn(enum.Enum):
    """Which clusters of the federation serve a platform kind."""

    HOST = "host"
    MEMBER = "member"


@dataclass(frozen=True)
class PlatformKindInfo(_ApiNames):
    """A ``pincompute.io`` kind the platform writes for itself; never a workload (no catalog, no watch)."""

    kind: str
    plural: str
    short_names: tuple[str, ...]
    title: str
    description: str
    installed_on: InstalledOn
    namespaced: bool = True
    group: str = GROUP
    version: str = VERSION


_REGISTRY: tuple[KindInfo, ...] = (
    KindInfo(
        "PinPod",
        "pinpods",
        ("ppod",),
        title="PinPod",
        category=Category.GENERAL,
        description="A single pod with managed sidecars, per-container update and optional persistent "
        "storage. Good for notebooks and one-off services.",
        becomes="Pod (+ PersistentVolumeClaim)",
        native_kinds=("Pod", "PersistentVolumeClaim"),
    ),
    KindInfo(
        "PinApp",
        "pinapps",
        ("papp",),
        title="PinApp",
        category=Category.GENERAL,
        description="A long-running application: replicas of a PinPod spread over zones, rolled out zone by zone.",
        becomes="Deployment per zone shard (+ Service)",
        native_kinds=("Deployment", "Service"),
        scalable=True,
        fails_over=True,
    ),
    KindInfo(
        "PinScaler",
        "pinscalers",
        ("pscaler",),
        title="PinScaler",
        category=Category.GENERAL,
        description="Autoscaling for a PinApp on CPU, memory or a custom metric, with cooldowns, min/max "
        "and scheduled windows.",
        becomes="HorizontalPodAutoscaler (+ scheduled bounds)",
        native_kinds=("HorizontalPodAutoscaler",),
        runs_pods=False,
        log_files=(),
    ),
    KindInfo(
        "PinterestService",
        "pinterestservices",
        ("psvc",),
        title="Service bundle",
        category=Category.GENERAL,
        description="A stateless service with its DNS name, ingress and configuration managed together.",
        becomes="Deployment + Service + Ingress + ConfigMap",
        native_kinds=("Deployment", "Service", "Ingress", "ConfigMap"),
        scalable=True,
        fails_over=True,
    ),
    KindInfo(
        "PinterestJobSet",
        "pinterestjobsets",
        ("pjobset",),
        title="Job set",
        category=Category.RUN_TO_FINISH,
        description="N parallel copies of the same container, each taking its own fraction of the work.",
        becomes="Indexed Job",
        native_kinds=("Job",),
    ),
    KindInfo(
        "PinterestCronJob",
        "pinterestcronjobs",
        ("pcron",),
        title="Cron job",
        category=Category.RUN_TO_FINISH,
        description="A periodic job on a cron schedule, with the platform runtime injected.",
        becomes="CronJob",
        native_kinds=("CronJob",),
    ),
    KindInfo(
        "PinterestDaemon",
        "pinterestdaemons",
        ("pdaemon",),
        title="Daemon",
        category=Category.INFRASTRUCTURE,
        description="An infrastructure agent that runs one copy on every node.",
        becomes="DaemonSet",
        native_kinds=("DaemonSet",),
    ),
    KindInfo(
        "PinterestTrainingJob",
        "pinteresttrainingjobs",
        ("ptrain",),
        title="Training job",
        category=Category.RUN_TO_FINISH,
        description="Distributed PyTorch or TensorFlow training with rank and world size wired in.",
        becomes="PyTorchJob/TFJob, or Indexed Job + headless Service",
        native_kinds=("PyTorchJob", "TFJob", "Job", "Service"),
        log_files=(*DEFAULT_LOG_FILES, "/var/log/train.log"),
    ),
)

KINDS: Mapping[str, KindInfo] = MappingProxyType({info.kind: info for info in _REGISTRY})
"""Every kind by name, in registry order (the order of CRDs, watches and the catalog)."""

BY_PLURAL: Mapping[str, KindInfo] = MappingProxyType({info.plural: info for info in _REGISTRY})

_PLATFORM: tuple[PlatformKindInfo, ...] = (
    PlatformKindInfo(
        "ProjectQuota",
        "projectquotas",
        ("pquota",),
        title="Project quota",
        description="A project's regional grant per tier (cpu, memory, GPUs, pods), written by the portal "
        "into the project's namespace on the host; federation admission counts workloads against it.",
        installed_on=InstalledOn.HOST,
    ),
    PlatformKindInfo(
        "MemberCluster",
        "memberclusters",
        ("pmember",),
        title="Member cluster",
        description="One member cluster as the federation sees it (region, zone, hardware, tier pool capacity, "
        "labels, taints, schedulable), written by the portal's cluster registry on the host; the federation "
        "controller places shards from it and reports the member's reachability and nodes in its status.",
        installed_on=InstalledOn.HOST,
        namespaced=False,
    ),
)

PLATFORM_KINDS: Mapping[str, PlatformKindInfo] = MappingProxyType({info.kind: info for info in _PLATFORM})
"""The platform's own kinds by name (not workloads: absent from ``KINDS``, the catalog and the watches)."""

PROJECT_QUOTA = PLATFORM_KINDS["ProjectQuota"]
MEMBER_CLUSTER = PLATFORM_KINDS["MemberCluster"]


def kind_info(kind: str) -> KindInfo:
    """The registry entry of ``kind``; ``KeyError`` naming the known kinds when there is none."""
    try:
        return KINDS[kind]
    except KeyError:
        raise KeyError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}") from None


def default_tier(kind: object) -> Tier:
    """The tier a workload of ``kind`` runs in when its spec names none."""
    info = KINDS.get(kind) if isinstance(kind, str) else None
    return info.default_tier if info else DEFAULT_TIER
