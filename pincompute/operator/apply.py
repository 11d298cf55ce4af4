"""The write plan for one CR: which objects to apply, which pods to patch or recreate, what to prune.

Pure (no I/O) so the plan for a fake live state is unit-testable. Built on the core's diff and
per-container update helpers; the only operator-side addition is ``comparable_pod``, which hides what
admission plugins add to every live pod (the service-account token volume and its mounts, default
NoExecute tolerations) so the core's comparison does not see a spec change that nobody made.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pincompute.translate import container_image_patch, diff_objects, pod_needs_recreate
from pincompute.translate.common import object_key

SA_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
SA_VOLUME_PREFIX = "kube-api-access-"
DEFAULT_TOLERATION_KEYS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")


@dataclass(frozen=True)
class PodPatch:
    obj: Mapping[str, Any]
    patch: dict[str, Any]


@dataclass
class WritePlan:
    """``apply``: server-side apply these; ``patch_pods``: in-place image updates; ``recreate``: delete
    these pods (the next reconcile creates them again); ``prune``: owned objects no longer desired."""

    apply: list[dict[str, Any]] = field(default_factory=list)
    patch_pods: list[PodPatch] = field(default_factory=list)
    recreate: list[Mapping[str, Any]] = field(default_factory=list)
    prune: list[Mapping[str, Any]] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)  # objects still terminating: try again shortly

    @property
    def empty(self) -> bool:
        return not (self.apply or self.patch_pods or self.recreate or self.prune)


def comparable_pod(live: Mapping[str, Any], desired: Mapping[str, Any]) -> dict[str, Any]:
    """The live pod minus admission-injected entries the desired pod does not ask for."""
    pod = copy.deepcopy(dict(live))
    spec = pod.get("spec") or {}
    wanted = desired.get("spec") or {}
    wanted_volumes = {v.get("name") for v in wanted.get("volumes") or []}
    if "volumes" in spec:
        spec["volumes"] = [
            v
            for v in spec["volumes"]
            if v.get("name") in wanted_volumes or not str(v.get("name", "")).startswith(SA_VOLUME_PREFIX)
        ]
    for group in ("containers", "initContainers"):
        for container in spec.get(group) or []:
            if "volumeMounts" in container:
                container["volumeMounts"] = [
                    m for m in container["volumeMounts"] if m.get("mountPath") != SA_MOUNT_PATH
                ]
                if not container["volumeMounts"]:
                    del container["volumeMounts"]
    if not spec.get("volumes"):
        spec.pop("volumes", None)
    wanted_tolerations = wanted.get("tolerations") or []
    if "tolerations" in spec:
        spec["tolerations"] = [
            t for t in spec["tolerations"] if t in wanted_tolerations or t.get("key") not in DEFAULT_TOLERATION_KEYS
        ]
        if not spec["tolerations"]:
            del spec["tolerations"]
    return pod


def fill_omitted(desired: Any, live: Any) -> Any:
    """Copy of ``live`` where every empty value we set ("" / false / 0) that the apiserver dropped on
    serialization (Go ``omitempty``, e.g. an env var with ``value: ""``) is put back, so it compares equal."""
    if isinstance(desired, dict) and isinstance(live, dict):
        result = dict(live)
        for key, value in desired.items():
            if key not in live:
                if value in ("", False, 0) and not isinstance(value, (dict, list)):
                    result[key] = value
            else:
                result[key] = fill_omitted(value, live[key])
        return result
    if isinstance(desired, list) and isinstance(live, list) and len(desired) == len(live):
        return [fill_omitted(d, x) for d, x in zip(desired, live, strict=True)]
    return live


def plan_writes(
    desired: Sequence[dict[str, Any]],
    live: Sequence[Mapping[str, Any]],
    *,
    owner_uid: str,
    owner_name: str,
    manager: str = "pincompute-operator",
) -> WritePlan:
    """What to write so the cluster matches ``desired``; ``live`` are the objects the CR controls."""
    live_by_key = {object_key(o): o for o in live}
    normalized = []
    for obj in live:
        wanted = _find(desired, obj)
        if wanted is not None:
            obj = fill_omitted(wanted, comparable_pod(obj, wanted) if obj.get("kind") == "Pod" else obj)
        normalized.append(obj)
    normalized_by_key = {object_key(o): o for o in normalized}
    diff = diff_objects(desired, normalized, owner_uid=owner_uid, owner_name=owner_name)
    plan = WritePlan(prune=[live_by_key[object_key(o)] for o in diff.prune])
    for obj in diff.create:
        plan.apply.append(obj)
    updating = {object_key(o) for o in diff.update}
    for obj in desired:
        current = live_by_key.get(object_key(obj))
        if current is not None and object_key(obj) not in updating and still_owns_replicas(obj, current, manager):
            plan.apply.append(obj)
    for obj in diff.update:
        current = live_by_key[object_key(obj)]
        if (current.get("metadata") or {}).get("deletionTimestamp"):
            plan.waiting.append(f"{obj['kind']}/{obj['metadata']['name']}")
            continue
        if obj.get("kind") != "Pod":
            plan.apply.append(obj)
            continue
        comparable = normalized_by_key[object_key(obj)]
        if pod_needs_recreate(comparable, obj):
            plan.recreate.append(current)
            continue
        patch = container_image_patch(comparable, obj)
        if patch:
            plan.patch_pods.append(PodPatch(current, patch))
        else:
            plan.apply.append(obj)  # only metadata (labels/annotations) differs: apply is allowed in place
    return plan


def still_owns_replicas(desired: Mapping[str, Any], live: Mapping[str, Any], manager: str) -> bool:
    """True when our last apply set ``spec.replicas`` but the desired object leaves it out (a PinScaler
    took over): only a new apply releases the field, otherwise SSA keeps fighting the HPA."""
    if "replicas" in (desired.get("spec") or {}):
        return False
    for entry in (live.get("metadata") or {}).get("managedFields") or []:
        fields = (entry.get("fieldsV1") or {}).get("f:spec") or {}
        if entry.get("manager") == manager and entry.get("operation") == "Apply" and "f:replicas" in fields:
            return True
    return False


def _find(desired: Sequence[Mapping[str, Any]], live: Mapping[str, Any]) -> Mapping[str, Any] | None:
    key = object_key(live)
    return next((d for d in desired if object_key(d) == key), None)
