"""Custom resource -> native Kubernetes objects, pure and deterministic.

Same input, byte-identical output: objects sorted by (apiVersion, kind, namespace, name), keys sorted.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from workloads.core.placement import Placement, split_replicas
from workloads.core.runtime import RuntimeProfile
from workloads.core.specs import parse
from workloads.core.translate import apps, batch
from workloads.core.translate.common import Context, canonical, object_key, owner_reference
from workloads.core.translate.diff import Plan, diff_objects
from workloads.core.translate.pods import (
    RestartAction,
    container_image_patch,
    pod_needs_recreate,
    restart_container_plan,
)
from workloads.core.translate.rollout import ZoneRollout, gate_zone_rollout, next_zone_to_roll, rollout_order

KUBEFLOW_PYTORCH = batch.KUBEFLOW_PYTORCH
KUBEFLOW_TF = batch.KUBEFLOW_TF


def translate(cr: Mapping[str, Any], profile: RuntimeProfile, placement: Placement, *,
              capabilities: frozenset[str] = frozenset(), autoscaled: bool = False,
              target: dict[str, Any] | None = None, now: datetime | None = None) -> list[dict[str, Any]]:
    """Native objects for one CR in one member cluster; raises SpecInvalid for an invalid CR.

    ``capabilities``: API kinds the cluster serves, e.g. ``{"kubeflow.org/v1/PyTorchJob"}``.
    ``autoscaled``: a PinScaler targets this PinApp, so Deployments leave ``replicas`` to the HPA.
    ``target``: for a PinScaler placed without a zone, its PinApp CR (to learn the zones).
    ``now``: for a PinScaler, the operator's clock, to apply an active schedule window.
    """
    workload = parse(cr)
    ctx = Context(workload, cr, profile, placement, capabilities)
    kind = workload.kind
    objects: list[dict[str, Any]]
    if kind == "PinApp":
        objects = apps.pinapp(ctx, autoscaled=autoscaled)
    elif kind == "PinScaler":
        objects = apps.pinscaler(ctx, target=target, now=now)
    else:
        objects = _SIMPLE[kind](ctx)
    return [canonical(o) for o in sorted(objects, key=object_key)]


_SIMPLE = {
    "PinPod": apps.pinpod,
    "PinterestService": apps.pinterestservice,
    "PinterestJobSet": batch.pinterestjobset,
    "PinterestCronJob": batch.pinterestcronjob,
    "PinterestDaemon": batch.pinterestdaemon,
    "PinterestTrainingJob": batch.pinteresttrainingjob,
}

__all__ = ["KUBEFLOW_PYTORCH", "KUBEFLOW_TF", "Placement", "Plan", "RestartAction", "ZoneRollout",
           "container_image_patch", "diff_objects", "gate_zone_rollout", "next_zone_to_roll", "owner_reference",
           "pod_needs_recreate", "restart_container_plan", "rollout_order", "split_replicas", "translate"]
