"""PinScaler: autoscaling for a PinApp on CPU, memory or a custom metric, with cooldowns and scheduled windows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pincompute.errors import FieldError
from pincompute.specs import checks as c
from pincompute.specs.common import (
    Operations,
    WorkloadMeta,
    build_meta,
    build_operations,
    meta_fields,
    operations_field,
)
from pincompute.specs.pod_checks import list_or_empty
from pincompute.specs.schema import Arr, Field, Int, IntOrStr, MapOf, Str, obj


@dataclass(frozen=True)
class Metric:
    type: str
    target_utilization: int | None = None
    metric: str | None = None
    target_average_value: str | None = None
    target_value: str | None = None
    selector: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ScheduleWindow:
    name: str
    cron: str
    min_replicas: int
    max_replicas: int
    duration_minutes: int
    time_zone: str | None = None


@dataclass(frozen=True)
class PinScaler:
    kind: ClassVar[str] = "PinScaler"
    meta: WorkloadMeta
    target: str
    min_replicas: int
    max_replicas: int
    metrics: tuple[Metric, ...]
    scale_up_cooldown: int | None = None
    scale_down_cooldown: int | None = None
    schedules: tuple[ScheduleWindow, ...] = ()
    operations: Operations = field(default_factory=Operations)


PINSCALER_SPEC = obj(
    *meta_fields(),
    Field(
        "targetRef",
        obj(
            Field("name", Str(checks=(c.workload_name,), description="The PinApp's name."), required=True),
            Field("kind", Str(enum=("PinApp",), description="Default PinApp.")),
            description="The workload it scales, in the same namespace.",
        ),
        required=True,
    ),
    Field("minReplicas", Int(minimum=1, maximum=10000, description="Never fewer replicas."), required=True),
    Field(
        "maxReplicas",
        Int(minimum=1, maximum=10000, description="Never more; the PinApp's claim on the grant counts them."),
        required=True,
    ),
    Field(
        "metrics",
        Arr(
            items=obj(
                Field(
                    "type",
                    Str(enum=("CPU", "Memory", "Pods", "External"), description="What is measured."),
                    required=True,
                ),
                Field("targetUtilization", Int(minimum=1, maximum=1000, description="Percent of requests.")),
                Field("metric", Str(max_length=253, description="Custom or external metric name.")),
                Field(
                    "targetAverageValue",
                    IntOrStr(checks=(c.any_quantity,), description="The value per pod to hold (a quantity)."),
                ),
                Field(
                    "targetValue",
                    IntOrStr(checks=(c.any_quantity,), description="External: the total value to hold (a quantity)."),
                ),
                Field(
                    "selector",
                    MapOf(
                        values=Str(checks=(c.label_value,)),
                        key_check=c.label_key,
                        description="Labels that pick the metric's series.",
                    ),
                ),
                description="One metric; the scaler follows the one that asks for the most replicas.",
            ),
            description="Defaults to CPU at 80% when empty.",
        ),
    ),
    Field(
        "behavior",
        obj(
            Field(
                "scaleUpCooldownSeconds",
                Int(minimum=0, maximum=3600, description="Wait this long after a change before growing."),
            ),
            Field(
                "scaleDownCooldownSeconds",
                Int(minimum=0, maximum=3600, description="Wait this long after a change before shrinking."),
            ),
            description="Cooldowns (the HPA's stabilization windows).",
        ),
    ),
    Field(
        "schedules",
        Arr(
            items=obj(
                Field("name", Str(checks=(c.container_name,), description="Unique among the windows."), required=True),
                Field(
                    "cron",
                    Str(checks=(c.cron_expression,), description="When the window opens (five-field cron)."),
                    required=True,
                ),
                Field("timeZone", Str(checks=(c.time_zone,), description="IANA name; default UTC.")),
                Field("minReplicas", Int(minimum=1, maximum=10000, description="The floor while open."), required=True),
                Field(
                    "maxReplicas", Int(minimum=1, maximum=10000, description="The ceiling while open."), required=True
                ),
                Field(
                    "durationMinutes",
                    Int(minimum=1, maximum=10080, description="How long it stays open."),
                    required=True,
                ),
                description="A scheduled window with its own bounds.",
            ),
            description="Bounds that apply at set times (business hours, a nightly batch).",
        ),
    ),
    operations_field(),
)

_METRIC_NEEDS = {
    "CPU": ("targetUtilization",),
    "Memory": ("targetUtilization",),
    "Pods": ("metric", "targetAverageValue"),
    "External": ("metric",),
}


def _check_bounds(item: Mapping[str, Any], path: str, errors: list[FieldError]) -> None:
    low, high = item.get("minReplicas"), item.get("maxReplicas")
    if isinstance(low, int) and isinstance(high, int) and low > high:
        errors.append(FieldError(f"{path}minReplicas", f"{low} is more than maxReplicas ({high})"))


def check_pinscaler(spec: Mapping[str, Any], errors: list[FieldError]) -> None:
    _check_bounds(spec, "spec.", errors)
    for index, metric in enumerate(list_or_empty(spec.get("metrics"))):
        if (
            not isinstance(metric, dict)
            or not isinstance(metric.get("type"), str)
            or metric["type"] not in _METRIC_NEEDS
        ):
            continue
        path = f"spec.metrics[{index}]"
        for key in _METRIC_NEEDS[metric["type"]]:
            if metric.get(key) is None:
                errors.append(FieldError(f"{path}.{key}", f"is required for a {metric['type']} metric"))
        if metric["type"] == "External" and (metric.get("targetValue") is None) == (
            metric.get("targetAverageValue") is None
        ):
            message = "set exactly one of targetValue, targetAverageValue"
            errors.append(FieldError(f"{path}.targetValue", message))
    names: set[str] = set()
    for index, window in enumerate(list_or_empty(spec.get("schedules"))):
        if isinstance(window, dict):
            _check_bounds(window, f"spec.schedules[{index}].", errors)
            if not isinstance(window.get("name"), str):  # reported by the schema
                continue
            if window["name"] in names:
                message = f"{window['name']!r} is used twice"
                errors.append(FieldError(f"spec.schedules[{index}].name", message))
            names.add(window["name"])


def build_pinscaler(manifest: Mapping[str, Any]) -> PinScaler:
    spec = manifest["spec"]
    metrics = tuple(
        Metric(
            m["type"],
            m.get("targetUtilization"),
            m.get("metric"),
            _str(m.get("targetAverageValue")),
            _str(m.get("targetValue")),
            dict(m.get("selector") or {}),
        )
        for m in spec.get("metrics") or ()
    )
    behavior = spec.get("behavior") or {}
    windows = tuple(
        ScheduleWindow(
            w["name"], w["cron"], w["minReplicas"], w["maxReplicas"], w["durationMinutes"], w.get("timeZone")
        )
        for w in spec.get("schedules") or ()
    )
    return PinScaler(
        build_meta(manifest),
        spec["targetRef"]["name"],
        spec["minReplicas"],
        spec["maxReplicas"],
        metrics or (Metric("CPU", 80),),
        behavior.get("scaleUpCooldownSeconds"),
        behavior.get("scaleDownCooldownSeconds"),
        windows,
        build_operations(spec),
    )


def _str(value: object) -> str | None:
    return None if value is None else str(value)
