"""The pod page: its containers, the log tab (options in the query, as the websocket takes them) and the shell tab.

Pods are read from the watch cache through ``debugging.authz``, the resolver the websocket consumers use: a
namespace of a project the user cannot see is a 404, like a missing pod, so other tenants' pod names are never
disclosed. Refusals are ServiceErrors that base.middleware turns into the matching error page.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from debugging.logs.files import declared_log_files
from debugging.views.common import log_options, pod_and_container, websocket_urls
from debugging.views.debug import debug_form_context
from debugging.views.last_lines import last_lines
from pincompute.labels import WORKLOAD_LABEL


@login_required
def pod_debug(request: HttpRequest, cluster: str, namespace: str, pod: str) -> HttpResponse:
    ref, container = pod_and_container(request, cluster, namespace, pod)
    options = [{"name": c, "sidecar": c in ref.sidecars, "exec": ref.may_exec(c)} for c in ref.containers]
    log, log_errors = log_options(request)
    query = {
        k: v
        for k, v in (
            ("tail", request.GET.get("tail", "").strip()),
            ("since", request.GET.get("since", "").strip()),
            ("timestamps", "1" if log.timestamps else ""),
            ("previous", "1" if log.previous else ""),
            ("include", request.GET.get("include", "")),
            ("exclude", request.GET.get("exclude", "")),
            ("file", request.GET.get("file", "").strip()),
        )
        if v
    }
    urls = websocket_urls(ref, container)
    if query:
        urls["logs_url"] += "?" + urlencode(query)
    context = {
        "ref": ref,
        "container": container,
        "options": options,
        "may_exec": ref.may_exec(container),
        "log_files": declared_log_files(ref.pod),
        "may_debug": ref.can_exec and not ref.finished,
        **debug_form_context(ref, container),
    }
    context |= {**urls, "log": log, "log_query": query, "log_errors": log_errors}
    workload = ((ref.pod.get("metadata") or {}).get("labels") or {}).get(WORKLOAD_LABEL, "")
    if ref.phase == "Failed" and workload:  # what it printed last, at once (its live log needs the socket)
        context |= {"blocks": [last_lines(request.user, ref.project, pod=ref.name)], "workload": workload}
        context |= {"namespace": namespace, "since": ""}
    return render(request, "debugging/pod.html", context, status=400 if log_errors else 200)
