"""A pod's or a workload's last archived lines (``logs.archive``), server-rendered with a link to the full archive.

The pod page of a failed pod includes them at once; the workload page (its failed pods') and the deleted workload's
page load this fragment (the workloads app sits beside debugging in the layers and may not import it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from base.errors import NotFound
from clusters import runtime
from debugging.authz import resolve_namespace
from debugging.logs.archive import ArchivedLine, read_archive
from debugging.policy import valid_name
from pincompute.errors import Invalid, Unavailable
from pincompute.labels import WORKLOAD_LABEL
from projects.models import Project

LAST_LINES = 20
MAX_FAILED_PODS = 3  # on a workload page: the last lines of its first few failed pods


@dataclass(frozen=True)
class LastLines:
    """One pod's (or a whole workload's, ``pod`` empty) last lines, oldest first, or why they cannot be read."""

    pod: str
    lines: list[ArchivedLine]
    down: str = ""


def last_lines(actor: Any, project: Project, *, workload: str = "", pod: str = "", since: str = "") -> LastLines:
    params = {k: v for k, v in (("workload", workload), ("pod", pod), ("since", since)) if v}
    try:
        _, lines = read_archive(actor, project.name, {**params, "limit": str(LAST_LINES)})
    except Unavailable as exc:
        return LastLines(pod, [], exc.message)
    return LastLines(pod, lines[::-1])


def failed_pods(namespace: str, workload: str) -> list[str]:
    """The workload's Failed pods on every member, from the watch caches (no apiserver call)."""
    names = {
        pod["metadata"]["name"]
        for cache in runtime.member_caches().values()
        for pod in cache.list("pods", namespace=namespace, label_selector={WORKLOAD_LABEL: workload})
        if (pod.get("status") or {}).get("phase") == "Failed"
    }
    return sorted(names)[:MAX_FAILED_PODS]


@login_required
def workload_last_lines(request: HttpRequest, namespace: str, workload: str) -> HttpResponse:
    """``?failed=1``: the last lines of each failed pod of the workload (nothing when none failed); otherwise the
    workload's last lines (``?since=`` from its creation, for a deleted one)."""
    if not valid_name(workload):
        raise NotFound("No such workload.")
    project = resolve_namespace(request.user, namespace)
    since = request.GET.get("since", "")
    try:
        if request.GET.get("failed"):
            blocks = [last_lines(request.user, project, pod=pod) for pod in failed_pods(namespace, workload)]
        else:
            blocks = [last_lines(request.user, project, workload=workload, since=since)]
    except Invalid as exc:
        return HttpResponse(exc.message, status=400, content_type="text/plain; charset=utf-8")
    context = {
        "blocks": blocks,
        "failed": bool(request.GET.get("failed")),
        "namespace": namespace,
        "workload": workload,
        "since": since,
    }
    return render(request, "debugging/partials/last_lines.html", context)
