"""Debug pages: thin views over debugging.authz (the same resolver the websocket consumers use).

Pods are read from the watch cache; a namespace of a project the user cannot see is a 404, like a
missing pod, so other tenants' pod names are never disclosed. Viewers get logs, not shells (403).
Refusals are ServiceErrors that base.middleware turns into the matching error page.
"""

from __future__ import annotations

from urllib.parse import urlencode

from csp.decorators import csp_update
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from kubernetes.config.config_exception import ConfigException

from base.errors import NotFound
from base.htmx import render_page
from base.permissions import is_platform_admin
from clusters.health import live_health
from clusters.runtime import api_for
from debugging.authz import PodRef, resolve_namespace, resolve_pod, resolve_selector
from debugging.filelogs import declared_log_files
from debugging.logoptions import parse_log_options
from debugging.models import DebugSession, SessionKind, SessionRecording
from debugging.policy import valid_name
from debugging.shells import AUTO, SHELLS, available, shell_command
from projects.access import visible_project
from projects.models import Project, ProjectRole

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
            ("include", request.GET.get("include", "")),
            ("exclude", request.GET.get("exclude", "")),
            ("file", log.file or ""),
        )
        if v
    }
    urls = _urls(ref, container)
    if query:
        urls["logs_url"] += "?" + urlencode(query)
    context = {
        "ref": ref,
        "container": container,
        "options": options,
        "may_exec": ref.may_exec(container),
        "log_files": declared_log_files(ref.pod),
    }
    return render(request, "debugging/pod.html", {**context, **urls, "log": log, "log_query": query})


@login_required
def shell_panel(request: HttpRequest, cluster: str, namespace: str, pod: str) -> HttpResponse:
    """The terminal: the pod page's htmx tab, or a page of its own when opened directly; 403 for viewers,
    like the exec websocket (4403)."""
    ref, container = _pod(request, cluster, namespace, pod, need_exec=True)  # sidecars: admins only (403)
    shell, _ = shell_command(request.GET.get("shell"))  # Invalid -> 400, like the websocket's 4400
    uid = str((ref.pod.get("metadata") or {}).get("uid", ""))
    live = live_health(ref.cluster)
    try:  # not while this process's breaker keeps off the cluster: the probe would wait on its dead apiserver
        reachable = live is None or live.state == "closed"
        present = available(api_for(ref.cluster), ref.namespace, ref.name, uid, container) if reachable else ["sh"]
    except ConfigException:
        present = ["sh"]  # the websocket says why it cannot connect
    urls = _urls(ref, container)
    if shell != AUTO:
        urls["exec_url"] += f"?shell={shell}"
    context = {
        "ref": ref,
        "container": container,
        "shell": shell,
        "shells": [name for name in SHELLS if name == AUTO or name in present],
        "recorded": ref.project.record_shells,
        **urls,
    }
    return render_page(request, "debugging/shell_page.html", "debugging/partials/shell.html", context)


@login_required
def workload_logs(request: HttpRequest, cluster: str, namespace: str) -> HttpResponse:
    raw = request.GET.get("selector", "")
    sel = resolve_selector(request.user, cluster, namespace, raw)
    logs_url = f"/ws/logs/{sel.cluster.name}/{sel.namespace}/?{urlencode({'selector': raw})}"
    workload = sel.selector.get("pincompute.io/workload", "") if len(sel.selector) == 1 else ""
    context = {"sel": sel, "raw_selector": raw, "logs_url": logs_url, "workload": workload}
    return render(request, "debugging/logs.html", context)


@login_required
def workload_logs_everywhere(request: HttpRequest, namespace: str, workload: str) -> HttpResponse:
    """A workload's pods on every member cluster in one stream (``aggregate``): joins and leaves as they happen."""
    if not valid_name(workload):
        raise NotFound("No such workload.")
    project = resolve_namespace(request.user, namespace)
    log = parse_log_options(request.GET.urlencode())
    query = {k: request.GET.get(k, "") for k in ("tail", "since", "include", "exclude") if request.GET.get(k, "")}
    if log.timestamps:
        query["timestamps"] = "1"
    logs_url = f"/ws/workload-logs/{namespace}/{workload}/" + (f"?{urlencode(query)}" if query else "")
    context = {"project": project, "namespace": namespace, "workload": workload, "logs_url": logs_url, "q": query}
    return render(request, "debugging/workload_logs.html", context)


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


def _recording(user: object, pk: int) -> SessionRecording:
    """A shell's recording, for its project's owners and platform admins; a 404 for anyone else."""
    found = SessionRecording.objects.select_related("session").filter(session_id=pk).first()
    if found is None or found.session.kind != SessionKind.SHELL:
        raise NotFound("No such recording.")
    if not is_platform_admin(user):
        project = Project.objects.visible_to(user).filter(name=found.session.project_name).first()
        if project is None or project.role_of(user) != ProjectRole.OWNER:
            raise NotFound("No such recording.")
    return found


@login_required
@csp_update({"script-src": ["'wasm-unsafe-eval'"]})  # the player's terminal emulator is WebAssembly
def recording_page(request: HttpRequest, pk: int) -> HttpResponse:
    found = _recording(request.user, pk)
    return render(request, "debugging/recording.html", {"rec": found, "s": found.session})


@login_required
def recording_cast(request: HttpRequest, pk: int) -> HttpResponse:
    """The asciicast v2 file (what the player loads; also a download)."""
    found = _recording(request.user, pk)
    response = HttpResponse(found.cast, content_type="application/x-asciicast; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="session-{found.session_id}.cast"'
    response["Cache-Control"] = "private, no-store"
    return response
