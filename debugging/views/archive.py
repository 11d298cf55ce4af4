"""The archived logs of a workload's pods, live and gone (``debugging.logs.archive``), from its workload page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse

from base.errors import NotFound
from base.htmx import render_page
from debugging.authz import resolve_namespace
from debugging.logs.archive import ArchivedLine, archived_pods, read_archive
from debugging.policy import valid_name
from pincompute.errors import Invalid, Unavailable

FILTERS = ("pod", "container", "since", "until", "q", "limit")


@login_required
def workload_archive(request: HttpRequest, namespace: str, workload: str) -> HttpResponse:
    """Lines of every pod the workload ever ran (a failed or deleted pod, a scaled-down replica), newest first."""
    if not valid_name(workload):
        raise NotFound("No such workload.")
    project = resolve_namespace(request.user, namespace)
    query = {k: request.GET.get(k, "") for k in FILTERS}
    params = {**query, "workload": workload}
    if not params["since"] and not params["until"]:
        params["since"] = query["since"] = "24h"
    lines: list[ArchivedLine] = []
    pods: list[tuple[str, int]] = []
    errors: dict[str, str] = {}
    down = ""
    status = 200
    try:
        _, lines = read_archive(request.user, project.name, params)
        pods = archived_pods(request.user, project.name, params)
    except Invalid as exc:
        errors, status = {f.path: f.message for f in exc.fields} or {"": exc.message}, 400
    except Unavailable as exc:
        down, status = exc.message, 503
    context = {
        "project": project,
        "namespace": namespace,
        "workload": workload,
        "q": query,
        "lines": lines,
        "pods": pods,
        "errors": errors,
        "down": down,
    }
    full, partial = "debugging/archive.html", "debugging/partials/archive_lines.html"
    response = render_page(request, full, partial, context, status=status)
    if status == 503:
        response["Retry-After"] = "5"
    return response
