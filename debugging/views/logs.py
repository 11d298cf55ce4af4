"""Log pages over many pods: a selector's pods on one member cluster, and a workload's pods on every member."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from base.errors import NotFound
from debugging.authz import resolve_namespace, resolve_selector
from debugging.policy import valid_name
from debugging.views.common import log_options


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
    """A workload's pods on every member cluster in one stream (``logs.workload_consumer``): pods join and leave as
    they come and go."""
    if not valid_name(workload):
        raise NotFound("No such workload.")
    project = resolve_namespace(request.user, namespace)
    log, log_errors = log_options(request)
    query = {k: request.GET.get(k, "") for k in ("tail", "since", "include", "exclude") if request.GET.get(k, "")}
    if log.timestamps:
        query["timestamps"] = "1"
    logs_url = f"/ws/workload-logs/{namespace}/{workload}/" + (f"?{urlencode(query)}" if query else "")
    context = {"project": project, "namespace": namespace, "workload": workload, "logs_url": logs_url, "q": query}
    context["log_errors"] = log_errors
    return render(request, "debugging/workload_logs.html", context, status=400 if log_errors else 200)
