"""Custom resource -> native Kubernetes objects, pure and deterministic.

Same input, byte-identical output: objects sorted by (apiVersion, kind, namespace, name), keys sorted.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, assert_never

from pincompute.placement import Placement, split_replicas
from pincompute.runtime import RuntimeProfile
from pincompute.specs import (
    PinApp,
    PinPod,
    PinScaler,
    PinterestCronJob,
    PinterestDaemon,
    PinterestJobSet,
    PinterestService,
    PinterestTrainingJob,
    parse,
)
from pincompute.translate import apps, batch
from pincompute.translate.common import Context, W, canonical, object_key, owner_reference
from pincompute.translate.diff import Plan, diff_objects
from pincompute.translate.pods import (
    RestartAction,
    container_image_patch,
    pod_needs_recreate,
    restart_container_plan,
)
from pincompute.translate.rollout import ZoneRollout, gate_zone_rollout, next_zone_to_roll, rollout_order

KUBEFLOW_PYTORCH = batch.KUBEFLOW_PYTORCH
KUBEFLOW_TF = batch.KUBEFLOW_TF


def translate(
    cr: Mapping[str, Any],
    profile: RuntimeProfile,
    placement: Placement,
    *,
    capabilities: frozenset[str] = frozenset(),
    autoscaled: bool = False,
    target: dict[str, Any] | None = None,
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """Native objects for one CR in one member cluster; raises SpecInvalid for an invalid CR.

    ``capabilities``: API kinds the cluster serves, e.g. ``{"kubeflow.org/v1/PyTorchJob"}``.
    ``autoscaled``: a PinScaler targets this PinApp, so Deployments leave ``replicas`` to the HPA.
    ``target``: for a PinScaler placed without a zone, its PinApp CR (to learn the zones).
    ``now``: for a PinScaler, the operator's clock, to apply an active schedule window.
    """
    workload = parse(cr)

    def ctx(typed: W) -> Context[W]:
        return Context(typed, cr, profile, placement, capabilities)

    objects: list[dict[str, Any]]
    match workload:  # every kind of Workload needs a case: mypy checks it (assert_never)
        case PinPod():
            objects = apps.pinpod(ctx(workload))
        case PinApp():
            objects = apps.pinapp(ctx(workload), autoscaled=autoscaled)
        case PinScaler():
            objects = apps.pinscaler(ctx(workload), target=target, now=now)
        case PinterestService():
            objects = apps.pinterestservice(ctx(workload))
        case PinterestJobSet():
            objects = batch.pinterestjobset(ctx(workload))
        case PinterestCronJob():
            objects = batch.pinterestcronjob(ctx(workload))
        case PinterestDaemon():
            objects = batch.pinterestdaemon(ctx(workload))
        case PinterestTrainingJob():
            objects = batch.pinteresttrainingjob(ctx(workload))
        case _:
            assert_never(workload)
    return [canonical(o) for o in sorted(objects, key=object_key)]


__all__ = [
    "KUBEFLOW_PYTORCH",
    "KUBEFLOW_TF",
    "Placement",
    "Plan",
    "RestartAction",
    "ZoneRollout",
    "container_image_patch",
    "diff_objects",
    "gate_zone_rollout",
    "next_zone_to_roll",
    "owner_reference",
    "pod_needs_recreate",
    "restart_container_plan",
    "rollout_order",
    "split_replicas",
    "translate",
]
