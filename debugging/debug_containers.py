"""Debug containers: an ephemeral container started in a pod beside one of its containers, as ``kubectl debug -it
--target`` does, for a pod whose containers crash or have no shell.

``start_debug_container`` authorizes first (the pod resolver the shell uses: another tenant's pod is a 404, a viewer
or a read-only token a 403, a finished pod a 409), then checks the body: the target must be one of the pod's own
containers (``container``; a platform sidecar is refused, 403) and the image one of the platform's allowlist
(``image``, ``DEBUG_CONTAINER_IMAGES``). It adds the container through the ``pods/ephemeralcontainers`` subresource
with ``targetContainerName`` (the runtime shares the target's process namespace), ``stdin`` and ``tty`` (its shell
waits, as kubectl leaves it), and the security context of the ``restricted`` Pod Security level (kubectl debug's
``restricted`` profile, run as uid 65534), so every project's level admits it. It is audited (``debug.start``); the
shell then opened into it is the terminal's own (audited and recorded like any shell). An ephemeral container cannot
be removed: it stays in the pod's spec, ended, until the pod goes.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException
from kubernetes.config.config_exception import ConfigException
from urllib3.exceptions import HTTPError

from base import audit
from base.errors import Forbidden, Invalid, NotFound, Unavailable
from clusters.kube.breaker import CircuitOpen
from clusters.remote import client, through_breaker
from debugging.authz import PodRef, resolve_pod
from pincompute.kube.apierrors import service_error

NAME_PREFIX = "debugger-"
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # Kubernetes' own for generated names (no vowels, no look-alikes)
DEBUG_UID = 65534
SECURITY_CONTEXT: dict[str, Any] = {
    "runAsNonRoot": True,
    "runAsUser": DEBUG_UID,
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "seccompProfile": {"type": "RuntimeDefault"},
}


@dataclass(frozen=True)
class DebugContainer:
    """A debug container of a pod and its state from the pod's ``ephemeralContainerStatuses``: ``waiting`` (no
    status yet, or waiting: ``reason``), ``running``, or ``terminated`` (``exit_code``)."""

    name: str
    target: str
    image: str
    state: str
    reason: str = ""
    exit_code: int | None = None

    @property
    def running(self) -> bool:
        return self.state == "running"


def allowed_images() -> list[str]:
    return list(settings.DEBUG_CONTAINER_IMAGES)


def debug_targets(ref: PodRef) -> list[str]:
    """The containers a debug container may target: the pod's own (``spec.containers``), not the platform's."""
    spec = ref.pod.get("spec") or {}
    return [c["name"] for c in spec.get("containers") or [] if c.get("name") and c["name"] not in ref.sidecars]


def debug_container_manifest(name: str, image: str, target: str) -> dict[str, Any]:
    return {
        "name": name,
        "image": image,
        "targetContainerName": target,
        "stdin": True,
        "tty": True,
        "terminationMessagePolicy": "File",
        "securityContext": SECURITY_CONTEXT,
    }


def debug_container_of(pod: dict[str, Any], name: str) -> DebugContainer | None:
    """The pod's debug container ``name`` with its state, or None when the pod has no such ephemeral container."""
    spec = next((c for c in (pod.get("spec") or {}).get("ephemeralContainers") or [] if c.get("name") == name), None)
    if spec is None:
        return None
    statuses = (pod.get("status") or {}).get("ephemeralContainerStatuses") or []
    state = next((s.get("state") or {} for s in statuses if s.get("name") == name), {})
    target, image = str(spec.get("targetContainerName") or ""), str(spec.get("image") or "")
    if "running" in state:
        return DebugContainer(name, target, image, "running")
    if "terminated" in state:
        ended = state["terminated"] or {}
        return DebugContainer(name, target, image, "terminated", str(ended.get("reason") or ""), ended.get("exitCode"))
    waiting = state.get("waiting") or {}
    return DebugContainer(name, target, image, "waiting", str(waiting.get("reason") or "ContainerCreating"))


def find_debug_container(user: Any, cluster: str, namespace: str, pod: str, name: str) -> tuple[PodRef, DebugContainer]:
    """A debug container the user may open a shell in (the shell's rules); NotFound when the pod has none of that
    name."""
    ref = resolve_pod(user, cluster, namespace, pod, need_exec=True)
    found = debug_container_of(ref.pod, name)
    if found is None:
        raise NotFound(f"Pod {pod} has no debug container {name!r}.")
    return ref, found


def start_debug_container(
    user: Any, cluster: str, namespace: str, pod: str, *, container: str | None, image: str | None
) -> tuple[PodRef, DebugContainer]:
    """Add a debug container to the pod, targeting ``container`` (default: the pod's first own container) with
    ``image`` (default: the allowlist's first); audited as ``debug.start``."""
    ref = resolve_pod(user, cluster, namespace, pod, need_exec=True)
    target = _target(ref, container)
    picked = _image(image)
    taken = {c.get("name") for key in ("containers", "initContainers", "ephemeralContainers")
             for c in (ref.pod.get("spec") or {}).get(key) or []}  # fmt: skip
    name = _new_name(taken)
    body = {"spec": {"ephemeralContainers": [debug_container_manifest(name, picked, target)]}}
    where = f"debug container in {ref.cluster.name}/{ref.namespace}/{ref.name}"
    api = client(ref.cluster, where)

    def patch() -> None:
        k8s.CoreV1Api(api).patch_namespaced_pod_ephemeralcontainers(ref.name, ref.namespace, body)

    try:
        through_breaker(ref.cluster, patch, idempotent=False)
    except CircuitOpen as exc:
        raise Unavailable(f"{where}: {exc}") from exc
    except (ApiException, HTTPError, OSError) as exc:
        raise service_error(exc, where) from exc
    except ConfigException as exc:
        raise Unavailable(f"{where}: the cluster's credentials cannot be loaded: {exc}") from exc
    audit.record(
        "debug.start",
        actor=user,
        target_kind="pod",
        target_name=f"{ref.namespace}/{ref.name}/{name}",
        project=ref.project.name,
        cluster=ref.cluster.name,
        after={"container": name, "target": target, "image": picked},
        summary=f"debug container {name} ({picked}) in {ref.name}, targeting {target}",
    )
    return ref, DebugContainer(name, target, picked, "waiting", "ContainerCreating")


def _target(ref: PodRef, container: str | None) -> str:
    targets = debug_targets(ref)
    if container and container in ref.sidecars:
        raise Forbidden(f"{container} is a platform sidecar: debug containers target the workload's own containers.")
    if not container:
        if not targets:
            raise Invalid.on("container", f"Pod {ref.name} has no container of its own to debug.")
        return targets[0]
    if container not in targets:
        listed = ", ".join(targets) or "none"
        raise Invalid.on(
            "container", f"Pod {ref.name} has no container {container[:63]!r} to debug (its own: {listed})."
        )
    return container


def _image(image: str | None) -> str:
    allowed = allowed_images()
    if not allowed:
        raise Forbidden("No debug image is allowed on this platform (DEBUG_CONTAINER_IMAGES is empty).")
    picked = (image or "").strip() or allowed[0]
    if picked not in allowed:
        raise Invalid.on("image", f"{picked[:200]!r} is not an allowed debug image: pick one of {', '.join(allowed)}.")
    return picked


def _new_name(taken: set[Any]) -> str:
    while True:
        name = NAME_PREFIX + "".join(secrets.choice(_ALPHABET) for _ in range(5))
        if name not in taken:
            return name
