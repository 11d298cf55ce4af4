"""The pod page and the shell panel's shared lookups: the pod and container asked for, and their websocket URLs."""

from __future__ import annotations

from django.http import Http404, HttpRequest

from debugging.authz import PodRef, resolve_pod


def pod_and_container(
    request: HttpRequest, cluster: str, namespace: str, pod: str, *, need_exec: bool = False
) -> tuple[PodRef, str]:
    """The pod (``?container=`` checked, else its first container), by the consumers' own resolver."""
    container = request.GET.get("container") or None
    ref = resolve_pod(request.user, cluster, namespace, pod, container=container, need_exec=need_exec)
    if not ref.containers:
        raise Http404("The pod has no containers.")
    return ref, container or ref.containers[0]


def websocket_urls(ref: PodRef, container: str) -> dict[str, str]:
    base = f"{ref.cluster.name}/{ref.namespace}/{ref.name}/{container}/"
    return {"exec_url": f"/ws/exec/{base}", "logs_url": f"/ws/logs/{base}"}
