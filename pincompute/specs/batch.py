"""Run-to-finish and infrastructure kinds: JobSet, CronJob, Daemon and TrainingJob."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from pincompute.errors import FieldError
from pincompute.quantity import GPU_RESOURCE
from pincompute.specs import checks as c
from pincompute.specs.common import (
    Operations,
    PodFields,
    WorkloadMeta,
    build_meta,
    build_operations,
    build_pod,
    meta_fields,
    operations_field,
    pod_fields,
)
from pincompute.specs.failover import failover_field
from pincompute.specs.pod_checks import check_operations, check_pod, dict_or_empty
from pincompute.specs.schema import Bool, Field, Int, IntOrStr, Str, obj

SHARD_ENV = frozenset({"SHARD_INDEX", "SHARD_COUNT"})
TRAINING_ENV = frozenset({"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "TF_CONFIG"})
_RESTART = Field(
    "restartPolicy",
    Str(enum=("Never", "OnFailure"), description="Never: a failed pod is replaced; OnFailure: restarted in place."),
)
_BACKOFF = Field("backoffLimit", Int(minimum=0, maximum=1000, description="Retries before the job fails; default 6."))
_TTL = Field(
    "ttlSecondsAfterFinished", Int(minimum=0, description="Delete the finished job's pods after this many seconds.")
)
_DEADLINE = Field("activeDeadlineSeconds", Int(minimum=1, description="Fail the job after running this long."))


def _check(spec: Mapping[str, Any], errors: list[FieldError], reserved_env: frozenset[str] = frozenset()) -> None:
    check_pod(spec, "spec", errors, reserved_env)
    check_operations(spec, spec, errors)


@dataclass(frozen=True)
class JobSettings:
    """Knobs shared by every run-to-finish kind; None means the Kubernetes default."""

    restart_policy: str = "Never"
    backoff_limit: int | None = None
    ttl_seconds_after_finished: int | None = None
    active_deadline_seconds: int | None = None


def _job_settings(spec: Mapping[str, Any], restart: str = "Never") -> JobSettings:
    return JobSettings(
        spec.get("restartPolicy") or restart,
        spec.get("backoffLimit"),
        spec.get("ttlSecondsAfterFinished"),
        spec.get("activeDeadlineSeconds"),
    )


# ---- PinterestJobSet ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PinterestJobSet:
    """``shards`` copies of the same pod; copy i gets SHARD_INDEX=i and SHARD_COUNT=shards."""

    kind: ClassVar[str] = "PinterestJobSet"
    meta: WorkloadMeta
    pod: PodFields
    shards: int
    parallelism: int
    job: JobSettings = field(default_factory=JobSettings)
    operations: Operations = field(default_factory=Operations)


PINTERESTJOBSET_SPEC = obj(
    *meta_fields(),
    *pod_fields(),
    Field(
        "shards", Int(minimum=1, maximum=10000, description="How many fractions the work is cut into."), required=True
    ),
    Field("parallelism", Int(minimum=1, maximum=10000, description="Shards running at once; default all.")),
    _RESTART,
    _BACKOFF,
    _TTL,
    _DEADLINE,
    operations_field(),
    failover_field(),
)


def check_pinterestjobset(spec: Mapping[str, Any], errors: list[FieldError]) -> None:
    _check(spec, errors, SHARD_ENV)
    shards, parallelism = spec.get("shards"), spec.get("parallelism")
    if isinstance(shards, int) and isinstance(parallelism, int) and parallelism > shards:
        errors.append(FieldError("spec.parallelism", f"{parallelism} is more than shards ({shards})"))


def build_pinterestjobset(manifest: Mapping[str, Any]) -> PinterestJobSet:
    spec = manifest["spec"]
    return PinterestJobSet(
        build_meta(manifest),
        build_pod(spec),
        spec["shards"],
        spec.get("parallelism") or spec["shards"],
        _job_settings(spec),
        build_operations(spec),
    )


# ---- PinterestCronJob -----------------------------------------------------------------------------


@dataclass(frozen=True)
class PinterestCronJob:
    kind: ClassVar[str] = "PinterestCronJob"
    meta: WorkloadMeta
    pod: PodFields
    schedule: str
    time_zone: str | None = None
    concurrency_policy: str = "Forbid"
    suspend: bool = False
    successful_jobs_history_limit: int = 3
    failed_jobs_history_limit: int = 1
    starting_deadline_seconds: int | None = None
    job: JobSettings = field(default_factory=JobSettings)
    operations: Operations = field(default_factory=Operations)


PINTERESTCRONJOB_SPEC = obj(
    *meta_fields(),
    *pod_fields(),
    Field("schedule", Str(checks=(c.cron_expression,), description="Five-field cron or @hourly etc."), required=True),
    Field("timeZone", Str(checks=(c.time_zone,), description="IANA name; default UTC.")),
    Field(
        "concurrencyPolicy",
        Str(
            enum=("Allow", "Forbid", "Replace"),
            description="A run due while the last still runs: Forbid (the default) skips it.",
        ),
    ),
    Field("suspend", Bool(description="Start no new runs (a running one goes on).")),
    Field("successfulJobsHistoryLimit", Int(minimum=0, maximum=100, description="Finished runs kept; default 3.")),
    Field("failedJobsHistoryLimit", Int(minimum=0, maximum=100, description="Failed runs kept; default 1.")),
    Field(
        "startingDeadlineSeconds", Int(minimum=10, description="A run not started this late after its time is skipped.")
    ),
    _RESTART,
    _BACKOFF,
    _TTL,
    _DEADLINE,
    operations_field(),
    failover_field(),
)


def check_pinterestcronjob(spec: Mapping[str, Any], errors: list[FieldError]) -> None:
    _check(spec, errors)


def build_pinterestcronjob(manifest: Mapping[str, Any]) -> PinterestCronJob:
    spec = manifest["spec"]
    return PinterestCronJob(
        build_meta(manifest),
        build_pod(spec),
        spec["schedule"],
        spec.get("timeZone"),
        spec.get("concurrencyPolicy") or "Forbid",
        bool(spec.get("suspend")),
        spec.get("successfulJobsHistoryLimit", 3),
        spec.get("failedJobsHistoryLimit", 1),
        spec.get("startingDeadlineSeconds"),
        _job_settings(spec, "OnFailure"),
        build_operations(spec),
    )


# ---- PinterestDaemon ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PinterestDaemon:
    kind: ClassVar[str] = "PinterestDaemon"
    meta: WorkloadMeta
    pod: PodFields
    update_strategy: str = "RollingUpdate"
    max_unavailable: int | str = 1
    operations: Operations = field(default_factory=Operations)


PINTERESTDAEMON_SPEC = obj(
    *meta_fields(),
    *pod_fields(),
    Field(
        "updateStrategy",
        obj(
            Field(
                "type",
                Str(enum=("RollingUpdate", "OnDelete"), description="OnDelete: a pod changes only when deleted."),
            ),
            Field(
                "maxUnavailable",
                IntOrStr(checks=(c.int_or_percent,), description="Nodes' pods down at once while rolling: 1 or 10%."),
            ),
            description="How an edit reaches the pods; default RollingUpdate, one node at a time.",
        ),
    ),
    operations_field(),
)


def check_pinterestdaemon(spec: Mapping[str, Any], errors: list[FieldError]) -> None:
    _check(spec, errors)
    strategy = spec.get("updateStrategy")
    if isinstance(strategy, dict) and strategy.get("maxUnavailable") in (0, "0%"):
        errors.append(FieldError("spec.updateStrategy.maxUnavailable", "must be more than 0"))


def build_pinterestdaemon(manifest: Mapping[str, Any]) -> PinterestDaemon:
    spec = manifest["spec"]
    strategy = spec.get("updateStrategy") or {}
    return PinterestDaemon(
        build_meta(manifest),
        build_pod(spec),
        strategy.get("type") or "RollingUpdate",
        strategy.get("maxUnavailable", 1),
        build_operations(spec),
    )


# ---- PinterestTrainingJob -------------------------------------------------------------------------

DEFAULT_PORTS = {"PyTorch": 23456, "TensorFlow": 2222}


@dataclass(frozen=True)
class PinterestTrainingJob:
    """Distributed training: rank 0 is the PyTorch master when ``master_replicas`` is 1."""

    kind: ClassVar[str] = "PinterestTrainingJob"
    meta: WorkloadMeta
    pod: PodFields
    framework: str
    workers: int
    master_replicas: int
    port: int
    gpus_per_worker: int = 0
    job: JobSettings = field(default_factory=JobSettings)
    operations: Operations = field(default_factory=Operations)

    @property
    def world_size(self) -> int:
        return self.master_replicas + self.workers


PINTERESTTRAININGJOB_SPEC = obj(
    *meta_fields(),
    *pod_fields(),
    Field(
        "framework",
        Str(enum=("PyTorch", "TensorFlow"), description="Sets the rendezvous environment (MASTER_ADDR, TF_CONFIG)."),
        required=True,
    ),
    Field("workers", Int(minimum=1, maximum=1000, description="Worker pods, besides the master."), required=True),
    Field("masterReplicas", Int(minimum=0, maximum=1, description="PyTorch only; default 1.")),
    Field("port", Int(minimum=1, maximum=65535, description="Rendezvous port; 23456 or 2222 by default.")),
    Field("gpusPerWorker", Int(minimum=0, maximum=16, description="Set on the first container.")),
    _BACKOFF,
    _TTL,
    _DEADLINE,
    operations_field(),
    failover_field(),
)


def check_pinteresttrainingjob(spec: Mapping[str, Any], errors: list[FieldError]) -> None:
    _check(spec, errors, TRAINING_ENV)
    if spec.get("framework") == "TensorFlow" and spec.get("masterReplicas"):
        errors.append(FieldError("spec.masterReplicas", "TensorFlow jobs have no master; remove it"))
    gpus = spec.get("gpusPerWorker")
    containers = spec.get("containers")
    if isinstance(gpus, int) and gpus and isinstance(containers, list) and containers:
        resources = dict_or_empty(dict_or_empty(containers[0]).get("resources"))
        for section in ("requests", "limits"):
            values = dict_or_empty(resources.get(section))
            if GPU_RESOURCE in values and str(values[GPU_RESOURCE]) != str(gpus):
                errors.append(
                    FieldError(
                        f"spec.containers[0].resources.{section}.{GPU_RESOURCE}",
                        f"conflicts with gpusPerWorker ({gpus}); set only one",
                    )
                )


def build_pinteresttrainingjob(manifest: Mapping[str, Any]) -> PinterestTrainingJob:
    spec = manifest["spec"]
    framework = spec["framework"]
    master = spec.get("masterReplicas", 1) if framework == "PyTorch" else 0
    return PinterestTrainingJob(
        build_meta(manifest),
        _with_gpus(build_pod(spec), spec.get("gpusPerWorker") or 0),
        framework,
        spec["workers"],
        master,
        spec.get("port") or DEFAULT_PORTS[framework],
        spec.get("gpusPerWorker") or 0,
        _job_settings(spec, "OnFailure"),
        build_operations(spec),
    )


def _with_gpus(pod: PodFields, gpus: int) -> PodFields:
    """gpusPerWorker is sugar for the first container's GPU request and limit."""
    if not gpus:
        return pod
    first = pod.containers[0]
    fields = dict(first.fields)
    resources = {k: dict(v) for k, v in (fields.get("resources") or {}).items()}
    for section in ("requests", "limits"):
        resources.setdefault(section, {})[GPU_RESOURCE] = str(gpus)
    fields["resources"] = resources
    return replace(pod, containers=(replace(first, fields=fields), *pod.containers[1:]))
