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
from base.permissions import is_platform_admin
from debugging.authz import PodRef, resolve_pod, resolve_selector
from debugging.logoptions import parse_log_options
from debugging.models import DebugSession
from projects.access import visible_project
from projects.models import ProjectRole

SESSIONS_SHOWN = 200


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
    options = [{"name": c, "sidecar": c in ref.sidecars, "exec": ref.may_exec(c)} for c in ref.containers]
    log = parse_log_options(request.GET.urlencode())  # Invalid -> 400, like the websocket's 4400
    query = {
        k: v
        for k, v in (
            ("tail", request.GET.get("tail", "").strip()),
            ("since", request.GET.get("since", "").strip()),
            ("timestamps", "1" if log.timestamps else ""),
            ("previous", "1" if log.previous else ""),
        )
        if v
    }
    urls = _urls(ref, container)
    if query:
        urls["logs_url"] += "?" + urlencode(query)
    context = {"ref": ref, "container": container, "options": options, "may_exec": ref.may_exec(container)}
    return render(request, "debugging/pod.html", {**context, **urls, "log": log, "log_query": query})


@login_required
def shell_panel(request: HttpRequest, cluster: str, namespace: str, pod: str) -> HttpResponse:
    """The terminal: the pod page's htmx tab, or a page of its own when opened directly; 403 for viewers,
    like the exec websocket (4403)."""
    ref, container = _pod(request, cluster, namespace, pod, need_exec=True)  # sidecars: admins only (403)
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


@login_required
def project_sessions(request: HttpRequest, project: str) -> HttpResponse:
    """Shells and log streams of a project, newest first: owners and platform admins see everyone's, other
    members their own; another tenant's project is a 404."""
    found = visible_project(request.user, project)
    sees_all = is_platform_admin(request.user) or found.role_of(request.user) == ProjectRole.OWNER
    rows = DebugSession.objects.filter(project_name=found.name)
    if not sees_all:
        rows = rows.filter(user=request.user)
    return render(
        request,
        "debugging/sessions.html",
        {"project": found, "rows": rows[:SESSIONS_SHOWN], "sees_all": sees_all, "shown": SESSIONS_SHOWN},
    )
