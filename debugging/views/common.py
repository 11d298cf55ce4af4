"""The debug pages' shared lookups: the pod and container asked for, their websocket URLs, the log options."""

from __future__ import annotations

from django.http import Http404, HttpRequest

from base.errors import Invalid
from debugging.authz import PodRef, resolve_pod
from debugging.logs.options import LogOptions, parse_log_options


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


def log_options(request: HttpRequest) -> tuple[LogOptions, dict[str, str]]:
    """The query's log options, or the defaults and each refused option's message: the page shows them beside its
    form (answered 400) and starts no stream, as the websocket would close 4400 on them."""
    try:
        return parse_log_options(request.GET.urlencode()), {}
    except Invalid as exc:
        return LogOptions(), {f.path: f.message for f in exc.fields}
