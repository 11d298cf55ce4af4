"""Debug pages: thin views over debugging.authz (the same resolver the websocket consumers use).

Pods are read from the watch cache; a namespace of a project the user cannot see is a 404, like a
missing pod, so other tenants' pod names are never disclosed. Viewers get logs, not shells (403).
Refusals are ServiceErrors that base.middleware turns into the matching error page.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from base.htmx import render_page
from debugging.authz import PodRef, resolve_pod, resolve_selector


def _pod(
    request: HttpRequest, cluster: str, namespace: str, pod: str, *, need_exec: bool = False
) -> tuple[PodRef, str]:
    container = request.GET.get("container") or None
    ref = resolve_pod(request.user, cluster, namespace, pod, container=container, need_exec=need_exec)
    if not ref.containers:
        raise Http404("The pod has no containers.")
    return ref, container or ref.containers[0]


def _urls(ref: PodRef, container: str) -> dict[str, str]:
    base = f"{ref.cluster.name}/{ref.namespace}/{ref.name}/{container}/"
    return {"exec_url": f"/ws/exec/{base}", "logs_url": f"/ws/logs/{base}"}


@login_required
def pod_debug(request: HttpRequest, cluster: str, namespace: str, pod: str) -> HttpResponse:
    ref, container = _pod(request, cluster, namespace, pod)
    return render(request, "debugging/pod.html", {"ref": ref, "container": container, **_urls(ref, container)})


@login_required
def shell_panel(request: HttpRequest, cluster: str, namespace: str, pod: str) -> HttpResponse:
    """The terminal: the pod page's htmx tab, or a page of its own when opened directly; 403 for viewers,
    like the exec websocket (4403)."""
    ref, container = _pod(request, cluster, namespace, pod, need_exec=True)
    return render_page(
        request,
        "debugging/shell_page.html",
        "debugging/partials/shell.html",
        {"ref": ref, "container": container, **_urls(ref, container)},
    )


@login_required
def workload_logs(request: HttpRequest, cluster: str, namespace: str) -> HttpResponse:
    raw = request.GET.get("selector", "")
    sel = resolve_selector(request.user, cluster, namespace, raw)
    logs_url = f"/ws/logs/{sel.cluster.name}/{sel.namespace}/?{urlencode({'selector': raw})}"
    return render(request, "debugging/logs.html", {"sel": sel, "raw_selector": raw, "logs_url": logs_url})
