"""Per-container update and container restarts for pods the operator manages directly (PinPod).

Kubernetes lets a live pod change its container images in place (the kubelet restarts only that
container); anything else needs a new pod. Deciding which is pure, so it lives here.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pincompute.labels import RESTARTED_AT_ANNOTATION
from pincompute.translate.compare import is_subset

_GROUPS = ("containers", "initContainers")


def _without_images(spec: Mapping[str, Any]) -> dict[str, Any]:
    stripped = copy.deepcopy(dict(spec))
    for group in _GROUPS:
        for container in stripped.get(group) or []:
            container.pop("image", None)
    return stripped


def pod_needs_recreate(current: Mapping[str, Any], desired: Mapping[str, Any]) -> bool:
    """Must the pod be deleted and created again (anything but images changed, or a restart asked)?"""
    current_notes = (current.get("metadata") or {}).get("annotations") or {}
    desired_notes = (desired.get("metadata") or {}).get("annotations") or {}
    if desired_notes.get(RESTARTED_AT_ANNOTATION) != current_notes.get(RESTARTED_AT_ANNOTATION):
        return True
    return not is_subset(_without_images(desired.get("spec") or {}), current.get("spec") or {})


def container_image_patch(current: Mapping[str, Any], desired: Mapping[str, Any]) -> dict[str, Any] | None:
    """Strategic-merge patch that changes only container images; None when the pod must be recreated.

    Returns ``{}`` when nothing differs. The patch lists containers by name (the merge key), so it
    never touches containers whose image is unchanged.
    """
    if pod_needs_recreate(current, desired):
        return None
    live = {(g, c.get("name")): c.get("image") for g in _GROUPS for c in (current.get("spec") or {}).get(g) or []}
    patch: dict[str, list[dict[str, str]]] = {}
    for group in _GROUPS:
        for container in (desired.get("spec") or {}).get(group) or []:
            if live.get((group, container.get("name"))) != container.get("image"):
                patch.setdefault(group, []).append({"name": container["name"], "image": container["image"]})
    return {"spec": patch} if patch else {}


@dataclass(frozen=True)
class RestartAction:
    """``exec-kill`` sends SIGTERM to PID 1 of the container (the kubelet restarts it in place, its restartCount
    rises); ``delete-pod`` when the pod would not restart it, ``why`` says so (its controller makes a new pod)."""

    pod: str
    container: str
    action: str
    command: tuple[str, ...] = ()
    why: str = ""


KILL_COMMAND = ("/bin/sh", "-c", "kill -TERM 1")
LAST_RESTART_STATUS: Final = "lastContainerRestart"


def _running(pod: Mapping[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running" and not (pod.get("metadata") or {}).get(
        "deletionTimestamp"
    )


def _container_running(pod: Mapping[str, Any], container: str) -> bool:
    status = pod.get("status") or {}
    found = [s for g in ("containerStatuses", "initContainerStatuses") for s in status.get(g) or []]
    return any(s.get("name") == container and "running" in (s.get("state") or {}) for s in found)


def restart_container_plan(cr: Mapping[str, Any], live_pods: Sequence[Mapping[str, Any]]) -> list[RestartAction]:
    """What to do for ``spec.operations.restartContainer``; [] once ``status.lastContainerRestart``
    equals its ``requestedAt`` (the operator records that after acting, which makes this idempotent).

    Only running pods are touched (a pending or finished pod has nothing to restart). The container is restarted in
    place where the kubelet would restart it (a sidecar, or ``restartPolicy`` other than Never) and it runs; else
    its pod is deleted, and ``why`` says which of the two stood in the way."""
    request = ((cr.get("spec") or {}).get("operations") or {}).get("restartContainer")
    if not request or (cr.get("status") or {}).get(LAST_RESTART_STATUS) == request.get("requestedAt"):
        return []
    actions = []
    for pod in sorted(live_pods, key=lambda p: str((p.get("metadata") or {}).get("name"))):
        name = str((pod.get("metadata") or {}).get("name"))
        if (request.get("pod") and request["pod"] != name) or not _running(pod):
            continue
        spec = pod.get("spec") or {}
        sidecars = {c.get("name") for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"}
        mains = {c.get("name") for c in spec.get("containers") or []}
        container = request["container"]
        if container not in sidecars | mains:
            continue
        if container in mains and spec.get("restartPolicy", "Always") == "Never":
            actions.append(RestartAction(name, container, "delete-pod", why="restartPolicy Never"))
        elif not _container_running(pod, container):
            actions.append(RestartAction(name, container, "delete-pod", why="the container is not running"))
        else:
            actions.append(RestartAction(name, container, "exec-kill", KILL_COMMAND))
    return actions


def restart_summary(container: str, restarted: Sequence[str], deleted: Mapping[str, str]) -> str:
    """What a container restart did, in one line: ``restarted container app in 2 pods`` and/or ``deleted 1 pod: no
    exec (403 forbidden)``; ``deleted`` maps each deleted pod to why it could not be restarted in place."""

    def pods(n: int) -> str:
        return f"{n} pod" if n == 1 else f"{n} pods"

    said = [f"restarted container {container} in {pods(len(restarted))}"] if restarted else []
    for why in sorted(set(deleted.values())):
        said.append(f"deleted {pods(sum(1 for w in deleted.values() if w == why))}: {why}")
    return "; ".join(said) or f"container {container}: no running pod runs it"
