"""Translation of the long-running kinds: PinPod, PinApp, PinScaler, PinterestService."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pincompute.errors import PermanentError
from pincompute.labels import CONFIG_HASH_ANNOTATION, NODE_ZONE_LABEL, ZONE_LABEL
from pincompute.placement import hpa_max_per_shard, split_counts, split_replicas
from pincompute.scaler_windows import active_schedule_bounds
from pincompute.specs import Metric, PinApp, PinPod, PinScaler, PinterestService
from pincompute.translate.common import Context, W, add_volume, content_hash

DATA_VOLUME = "pincompute-data"
CONFIG_VOLUME = "pincompute-config"
CONFIG_MOUNT = "/etc/pincompute/config"


def pinpod(ctx: Context[PinPod]) -> list[dict[str, Any]]:
    """Pod (+ PVC). Stopping removes the Pod but keeps the PVC, so data survives stop/start."""
    pod = ctx.workload
    objects: list[dict[str, Any]] = []
    spec = pod.pod.to_pod_spec()
    spec["restartPolicy"] = pod.restart_policy
    if pod.persistence:
        claim = f"{ctx.name}-data"
        add_volume(
            spec,
            {"name": DATA_VOLUME, "persistentVolumeClaim": {"claimName": claim}},
            {"name": DATA_VOLUME, "mountPath": pod.persistence.mount_path},
        )
        pvc_spec: dict[str, Any] = {
            "accessModes": [pod.persistence.access_mode],
            "resources": {"requests": {"storage": pod.persistence.size}},
        }
        if pod.persistence.storage_class:
            pvc_spec["storageClassName"] = pod.persistence.storage_class
        objects.append(
            {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": ctx.metadata(claim), "spec": pvc_spec}
        )
    if not pod.operations.stopped:
        template = ctx.pod_template(spec)
        metadata = ctx.metadata(ctx.name)
        metadata["annotations"] = template["metadata"]["annotations"]
        objects.append({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": template["spec"]})
    return objects


def pinapp(ctx: Context[PinApp], *, autoscaled: bool = False) -> list[dict[str, Any]]:
    """One Deployment per zone shard, ``<app>-<zone>``, plus one Service selecting every shard.

    Paused or stopped: replicas 0, spec kept. When a PinScaler drives the app, ``replicas`` is left
    out so server-side apply never fights the HorizontalPodAutoscaler.
    """
    app = ctx.workload
    placement = ctx.placement
    if placement.zone:
        zones = [placement.zone]
        counts = {
            placement.zone: placement.replicas
            if placement.replicas is not None
            else split_replicas(app.replicas, app.zones).get(placement.zone, 0)
        }
    else:
        zones = list(app.zones)
        counts = split_replicas(app.replicas, app.zones)
    objects: list[dict[str, Any]] = []
    for zone in zones:
        shard = app.zones.index(zone) if zone in app.zones else placement.shard_index
        identity = ctx.identity(zone=zone, shard=shard)
        spec = app.template.to_pod_spec()
        if not placement.zone:
            spec.setdefault("nodeSelector", {})[NODE_ZONE_LABEL] = zone
        deployment_spec: dict[str, Any] = {
            "selector": {"matchLabels": ctx.selector(**{ZONE_LABEL: zone})},
            "strategy": {
                "type": "RollingUpdate",
                "rollingUpdate": {"maxUnavailable": app.rollout.max_unavailable, "maxSurge": app.rollout.max_surge},
            },
            "template": ctx.pod_template(spec, identity, annotations=None, **{ZONE_LABEL: zone}),
        }
        if app.operations.halted:
            deployment_spec["replicas"] = 0
        elif not autoscaled:
            deployment_spec["replicas"] = counts[zone]
        objects.append(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": ctx.metadata(f"{ctx.name}-{zone}", identity, **{ZONE_LABEL: zone}),
                "spec": deployment_spec,
            }
        )
    if app.service_ports:
        objects.append(_service(ctx, ctx.name, [p.to_k8s() for p in app.service_ports]))
    return objects


def pinscaler(
    ctx: Context[PinScaler], *, target: dict[str, Any] | None = None, now: datetime | None = None
) -> list[dict[str, Any]]:
    """One autoscaling/v2 HPA per zone shard Deployment, with min/max split across the shards.

    With ``now``, an active schedule window's bounds replace the base bounds (the operator passes
    its clock; translation itself never reads one). Paused or stopped: no HPA.
    """
    scaler = ctx.workload
    if scaler.operations.halted:
        return []
    bounds = active_schedule_bounds(scaler, now) if now else None
    low, high = bounds or (scaler.min_replicas, scaler.max_replicas)
    placement = ctx.placement
    if placement.zone:
        shards = [(placement.zone, placement.shard_index, placement.shard_count)]
    elif target is not None:
        zones = list((target.get("spec") or {}).get("zones") or [])
        shards = [(zone, index, len(zones)) for index, zone in enumerate(zones)]
    else:
        raise PermanentError(f"PinScaler {ctx.name}: no zone in the placement and no target PinApp given")
    objects = []
    for zone, index, count in shards:
        shard_min = max(1, split_counts(low, count)[index])
        shard_max = max(shard_min, hpa_max_per_shard(high, count)[index])
        spec: dict[str, Any] = {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": f"{scaler.target}-{zone}"},
            "minReplicas": shard_min,
            "maxReplicas": shard_max,
            "metrics": [_metric(m) for m in scaler.metrics],
        }
        behavior = {}
        if scaler.scale_up_cooldown is not None:
            behavior["scaleUp"] = {"stabilizationWindowSeconds": scaler.scale_up_cooldown}
        if scaler.scale_down_cooldown is not None:
            behavior["scaleDown"] = {"stabilizationWindowSeconds": scaler.scale_down_cooldown}
        if behavior:
            spec["behavior"] = behavior
        identity = ctx.identity(zone=zone, shard=index)
        objects.append(
            {
                "apiVersion": "autoscaling/v2",
                "kind": "HorizontalPodAutoscaler",
                "metadata": ctx.metadata(f"{ctx.name}-{zone}", identity, **{ZONE_LABEL: zone}),
                "spec": spec,
            }
        )
    return objects


def _metric(metric: Metric) -> dict[str, Any]:
    if metric.type in ("CPU", "Memory"):
        return {
            "type": "Resource",
            "resource": {
                "name": metric.type.lower(),
                "target": {"type": "Utilization", "averageUtilization": metric.target_utilization},
            },
        }
    if metric.type == "Pods":
        return {
            "type": "Pods",
            "pods": {
                "metric": {"name": metric.metric},
                "target": {"type": "AverageValue", "averageValue": metric.target_average_value},
            },
        }
    target: dict[str, str | None] = (
        {"type": "Value", "value": metric.target_value}
        if metric.target_value is not None
        else {"type": "AverageValue", "averageValue": metric.target_average_value}
    )
    name: dict[str, Any] = {"name": metric.metric}
    if metric.selector:
        name["selector"] = {"matchLabels": dict(metric.selector)}
    return {"type": "External", "external": {"metric": name, "target": target}}


def pinterestservice(ctx: Context[PinterestService]) -> list[dict[str, Any]]:
    """Deployment + Service + Ingress + ConfigMap; a config change rolls the pods via a hash annotation."""
    svc = ctx.workload
    spec = svc.pod.to_pod_spec()
    annotations = {}
    objects: list[dict[str, Any]] = []
    if svc.config:
        config_name = f"{ctx.name}-config"
        objects.append(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": ctx.metadata(config_name), "data": dict(svc.config)}
        )
        add_volume(
            spec,
            {"name": CONFIG_VOLUME, "configMap": {"name": config_name}},
            {"name": CONFIG_VOLUME, "mountPath": CONFIG_MOUNT, "readOnly": True},
            groups=("containers", "initContainers"),
        )
        annotations[CONFIG_HASH_ANNOTATION] = content_hash(dict(svc.config))
    replicas = ctx.placement.replicas if ctx.placement.replicas is not None else svc.replicas
    objects.append(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": ctx.metadata(ctx.name),
            "spec": {
                "replicas": 0 if svc.operations.halted else replicas,
                "selector": {"matchLabels": ctx.selector()},
                "template": ctx.pod_template(spec, annotations=annotations),
            },
        }
    )
    objects.append(_service(ctx, ctx.name, [p.to_k8s() for p in svc.ports]))
    if svc.ingress:
        ingress = svc.ingress
        port_ref = ingress.port if ingress.port is not None else (svc.ports[0].name or svc.ports[0].port)
        port: dict[str, str | int] = {"name": port_ref} if isinstance(port_ref, str) else {"number": port_ref}
        ingress_spec: dict[str, Any] = {
            "rules": [
                {
                    "host": ingress.host,
                    "http": {
                        "paths": [
                            {
                                "path": ingress.path,
                                "pathType": ingress.path_type,
                                "backend": {"service": {"name": ctx.name, "port": port}},
                            }
                        ]
                    },
                }
            ]
        }
        if ingress.class_name:
            ingress_spec["ingressClassName"] = ingress.class_name
        objects.append(
            {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "Ingress",
                "metadata": ctx.metadata(ctx.name),
                "spec": ingress_spec,
            }
        )
    return objects


def _service(ctx: Context[W], name: str, ports: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": ctx.metadata(name),
        "spec": {"selector": ctx.selector(), "ports": ports, **extra},
    }
