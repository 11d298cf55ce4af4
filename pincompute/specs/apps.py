"""Long-running kinds: PinPod, PinApp and PinterestService (PinScaler, which scales them, is in scaler.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pincompute.errors import FieldError
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
from pincompute.specs.pod_checks import check_operations, check_pod, dict_or_empty, list_or_empty
from pincompute.specs.schema import Arr, Field, Int, IntOrStr, MapOf, Str, obj

SERVICE_PORT = obj(
    Field("name", Str(checks=(c.port_name,), description="Unique among the ports; required by Ingress by name.")),
    Field("port", Int(minimum=1, maximum=65535, description="The port the Service exposes."), required=True),
    Field(
        "targetPort",
        IntOrStr(checks=(c.port_ref,), description="A container port by number or name; default the same as port."),
    ),
    Field("protocol", Str(enum=("TCP", "UDP", "SCTP"), description="Default TCP.")),
    description="A port of the workload's Service.",
)


@dataclass(frozen=True)
class ServicePort:
    port: int
    name: str | None = None
    target_port: int | str | None = None
    protocol: str = "TCP"

    def to_k8s(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "port": self.port,
            "protocol": self.protocol,
            "targetPort": self.target_port if self.target_port is not None else self.port,
        }
        if self.name:
            out["name"] = self.name
        return out


def build_ports(raw: Sequence[Mapping[str, Any]] | None) -> tuple[ServicePort, ...]:
    return tuple(
        ServicePort(p["port"], p.get("name"), p.get("targetPort"), p.get("protocol") or "TCP") for p in raw or ()
    )


def check_service_ports(ports: object, pod: Mapping[str, Any], path: str, errors: list[FieldError]) -> None:
    """Ports must be unique and a named targetPort must name a container port."""
    pods_valid = all(isinstance(pod.get(g, []), list) for g in ("containers", "sidecars"))
    container_ports = {
        p.get("name")
        for g in ("containers", "sidecars")
        for x in list_or_empty(pod.get(g))
        if isinstance(x, dict)
        for p in list_or_empty(x.get("ports"))
        if isinstance(p, dict) and isinstance(p.get("name"), str)
    }
    seen: set[tuple[str, int | str]] = set()
    for index, port in enumerate(ports if isinstance(ports, list) else []):
        if not isinstance(port, dict):
            continue
        for key in ("name", "port"):
            value = port.get(key)
            if not isinstance(value, int | str):  # absent, or a type the schema reports (unhashable, too)
                continue
            if (key, value) in seen:
                errors.append(FieldError(f"{path}[{index}].{key}", f"{value!r} is used twice"))
            seen.add((key, value))
        target = port.get("targetPort")
        if pods_valid and isinstance(target, str) and target not in container_ports:
            errors.append(FieldError(f"{path}[{index}].targetPort", f"no container port is named {target!r}"))


_REPLICAS = "How many pods to run; default 1. The scale subresource (kubectl scale, an HPA) sets it."


def _scalar(value: object) -> bool:
    """A value a set can hold and a rule can compare (any other type is the schema's error to report)."""
    return isinstance(value, int | str)


# ---- PinPod ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Persistence:
    size: str
    mount_path: str
    storage_class: str | None = None
    access_mode: str = "ReadWriteOnce"


@dataclass(frozen=True)
class PinPod:
    kind: ClassVar[str] = "PinPod"
    meta: WorkloadMeta
    pod: PodFields
    restart_policy: str = "Always"
    persistence: Persistence | None = None
    operations: Operations = field(default_factory=Operations)


PINPOD_SPEC = obj(
    *meta_fields(),
    *pod_fields(),
    Field(
        "restartPolicy",
        Str(enum=("Always", "OnFailure", "Never"), description="When the pod's containers restart; default Always."),
    ),
    Field(
        "persistence",
        obj(
            Field("size", IntOrStr(checks=(c.memory_quantity,), description="The volume's size: 10Gi."), required=True),
            Field(
                "mountPath",
                Str(checks=(c.absolute_path,), description="Where every container sees it."),
                required=True,
            ),
            Field("storageClassName", Str(checks=(c.dns_subdomain,), description="Default: the cluster's default.")),
            Field(
                "accessMode",
                Str(
                    enum=("ReadWriteOnce", "ReadWriteOncePod", "ReadWriteMany"),
                    description="Default ReadWriteOnce.",
                ),
            ),
            description="A PersistentVolumeClaim kept across pod restarts and stop/start.",
        ),
    ),
    operations_field(),
    failover_field(),
)


def check_pinpod(spec: Mapping[str, Any], errors: list[FieldError]) -> None:
    check_pod(spec, "spec", errors)
    check_operations(spec, spec, errors)
    ops = spec.get("operations")
    if isinstance(ops, dict) and ops.get("paused") is True:
        errors.append(FieldError("spec.operations.paused", "a PinPod cannot be paused; use stopped"))


def build_pinpod(manifest: Mapping[str, Any]) -> PinPod:
    spec = manifest["spec"]
    raw = spec.get("persistence")
    persistence = (
        Persistence(
            str(raw["size"]), raw["mountPath"], raw.get("storageClassName"), raw.get("accessMode") or "ReadWriteOnce"
        )
        if raw
        else None
    )
    return PinPod(
        build_meta(manifest),
        build_pod(spec),
        spec.get("restartPolicy") or "Always",
        persistence,
        build_operations(spec),
    )


# ---- PinApp ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rollout:
    zone_order: tuple[str, ...]
    max_unavailable: int | str = "25%"
    max_surge: int | str = "25%"


@dataclass(frozen=True)
class PinApp:
    kind: ClassVar[str] = "PinApp"
    meta: WorkloadMeta
    template: PodFields
    replicas: int
    zones: tuple[str, ...]
    rollout: Rollout
    shard_strategy: str = "Balanced"
    service_ports: tuple[ServicePort, ...] = ()
    operations: Operations = field(default_factory=Operations)


PINAPP_SPEC = obj(
    *meta_fields(),
    Field("template", obj(*pod_fields(), description="The pod of every replica."), required=True),
    Field("replicas", Int(minimum=0, maximum=10000, description=f"{_REPLICAS} Split evenly over the zones.")),
    Field(
        "zones",
        Arr(
            items=Str(checks=(c.label_value,)),
            min_items=1,
            description="The zones to run in; the replicas are spread over a member cluster in each.",
        ),
        required=True,
    ),
    Field("shardStrategy", Str(enum=("Balanced",), description="How replicas are split over zones: evenly.")),
    Field(
        "rollout",
        obj(
            Field(
                "zoneOrder",
                Arr(items=Str(), description="Zones in the order an edit reaches them; the rest follow in spec order."),
            ),
            Field(
                "maxUnavailable",
                IntOrStr(checks=(c.int_or_percent,), description="Replicas down at once in a zone: 1 or 25%."),
            ),
            Field(
                "maxSurge",
                IntOrStr(checks=(c.int_or_percent,), description="Replicas above the count while rolling: 1 or 25%."),
            ),
            description="How an edit rolls out: zone by zone, each waiting for the one before to be ready.",
        ),
    ),
    Field(
        "service",
        obj(
            Field("ports", Arr(items=SERVICE_PORT, min_items=1, description="The Service's ports."), required=True),
            description="A Service in front of the replicas, in every zone.",
        ),
    ),
    operations_field(),
    failover_field(),
)


def check_pinapp(spec: Mapping[str, Any], errors: list[FieldError]) -> None:
    template = dict_or_empty(spec.get("template"))
    check_pod(template, "spec.template", errors)
    check_operations(spec, template, errors)
    zones = list_or_empty(spec.get("zones"))  # not a list: already reported, and no zoneOrder check echoes it
    for index, zone in enumerate(zones):
        if zone in zones[:index]:
            errors.append(FieldError(f"spec.zones[{index}]", f"zone {zone!r} is listed twice"))
    rollout = dict_or_empty(spec.get("rollout"))
    order = list_or_empty(rollout.get("zoneOrder")) if zones else []
    for index, zone in enumerate(order):
        path = f"spec.rollout.zoneOrder[{index}]"
        if zone not in zones:
            errors.append(FieldError(path, f"zone {zone!r} is not in spec.zones"))
        elif zone in order[:index]:
            errors.append(FieldError(path, f"zone {zone!r} is listed twice"))
    if rollout.get("maxUnavailable") in (0, "0%") and rollout.get("maxSurge") in (0, "0%"):
        errors.append(FieldError("spec.rollout.maxSurge", "maxSurge and maxUnavailable cannot both be 0"))
    service = spec.get("service")
    if isinstance(service, dict):
        check_service_ports(service.get("ports"), template, "spec.service.ports", errors)


def build_pinapp(manifest: Mapping[str, Any]) -> PinApp:
    spec = manifest["spec"]
    zones = tuple(spec["zones"])
    rollout = spec.get("rollout") or {}
    order = tuple(rollout.get("zoneOrder") or ())
    order = order + tuple(z for z in zones if z not in order)
    return PinApp(
        build_meta(manifest),
        build_pod(spec["template"]),
        int(spec.get("replicas", 1)),
        zones,
        Rollout(order, rollout.get("maxUnavailable", "25%"), rollout.get("maxSurge", "25%")),
        spec.get("shardStrategy") or "Balanced",
        build_ports((spec.get("service") or {}).get("ports")),
        build_operations(spec),
    )


# ---- PinterestService -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Ingress:
    host: str
    path: str = "/"
    path_type: str = "Prefix"
    port: int | str | None = None
    class_name: str | None = None


@dataclass(frozen=True)
class PinterestService:
    kind: ClassVar[str] = "PinterestService"
    meta: WorkloadMeta
    pod: PodFields
    replicas: int
    ports: tuple[ServicePort, ...]
    ingress: Ingress | None = None
    config: Mapping[str, str] = field(default_factory=dict)
    operations: Operations = field(default_factory=Operations)


PINTERESTSERVICE_SPEC = obj(
    *meta_fields(),
    *pod_fields(),
    Field("replicas", Int(minimum=0, maximum=10000, description=_REPLICAS)),
    Field("ports", Arr(items=SERVICE_PORT, min_items=1, description="The Service's ports."), required=True),
    Field(
        "ingress",
        obj(
            Field("host", Str(checks=(c.dns_subdomain,), description="The host name it answers."), required=True),
            Field("path", Str(checks=(c.absolute_path,), description="Default /.")),
            Field("pathType", Str(enum=("Prefix", "Exact"), description="Default Prefix.")),
            Field(
                "port",
                IntOrStr(checks=(c.port_ref,), description="Service port name or number; default the first."),
            ),
            Field("className", Str(checks=(c.dns_subdomain,), description="The IngressClass; default the cluster's.")),
            description="An Ingress routing a host (and path) to the Service.",
        ),
    ),
    Field(
        "config",
        MapOf(
            values=Str(), key_check=c.config_key, description="Becomes a ConfigMap mounted at /etc/pincompute/config."
        ),
    ),
    operations_field(),
    failover_field(),
)


def check_pinterestservice(spec: Mapping[str, Any], errors: list[FieldError]) -> None:
    check_pod(spec, "spec", errors)
    check_operations(spec, spec, errors)
    check_service_ports(spec.get("ports"), spec, "spec.ports", errors)
    ingress, ports = spec.get("ingress"), spec.get("ports")
    if isinstance(ingress, dict) and isinstance(ingress.get("port"), int | str) and isinstance(ports, list):
        known = {p.get(k) for p in ports if isinstance(p, dict) for k in ("name", "port") if _scalar(p.get(k))}
        if ingress["port"] not in known:
            errors.append(FieldError("spec.ingress.port", f"{ingress['port']!r} is not one of spec.ports"))
    config = spec.get("config")
    if isinstance(config, dict) and sum(len(str(k)) + len(str(v)) for k, v in config.items()) > 1_000_000:
        errors.append(FieldError("spec.config", "config is larger than 1 MB; a ConfigMap cannot hold it"))


def build_pinterestservice(manifest: Mapping[str, Any]) -> PinterestService:
    spec = manifest["spec"]
    raw = spec.get("ingress")
    ingress = (
        Ingress(
            raw["host"], raw.get("path") or "/", raw.get("pathType") or "Prefix", raw.get("port"), raw.get("className")
        )
        if raw
        else None
    )
    return PinterestService(
        build_meta(manifest),
        build_pod(spec),
        int(spec.get("replicas", 1)),
        build_ports(spec["ports"]),
        ingress,
        dict(spec.get("config") or {}),
        build_operations(spec),
    )
