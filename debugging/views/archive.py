"""The archived logs of a workload's pods, live and gone (``debugging.logs.archive``), from its workload page."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse

from base.errors import NotFound
from base.htmx import render_page
from debugging.authz import resolve_namespace
from debugging.logs.archive import MAX_LIMIT, ArchivedLine, archived_pods, read_archive_page
from debugging.policy import valid_name
from pincompute.errors import Invalid, Unavailable

FILTERS = ("pod", "container", "since", "until", "q", "regex", "source", "stream", "order", "limit", "offset")


def _params(request: HttpRequest, workload: str) -> tuple[dict[str, str], dict[str, str]]:
    """(what the form shows, what the archive is asked): the last 24 hours unless a range is given."""
    query = {k: request.GET.get(k, "") for k in FILTERS}
    if not query["since"] and not query["until"]:
        query["since"] = "24h"
    return query, {**query, "workload": workload}


@login_required
def workload_archive(request: HttpRequest, namespace: str, workload: str) -> HttpResponse:
    """Lines of every pod the workload ever ran (a failed or deleted pod, a scaled-down replica), newest first."""
    if not valid_name(workload):
        raise NotFound("No such workload.")
    project = resolve_namespace(request.user, namespace)
    query, params = _params(request, workload)
    lines: list[ArchivedLine] = []
    older = ""
    pods: list[tuple[str, int]] = []
    errors: dict[str, str] = {}
    down = ""
    status = 200
    try:
        page = read_archive_page(request.user, project.name, params)
        lines = page.lines
        if page.next:
            older = urlencode({k: v for k, v in {**query, **page.next}.items() if v})
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
        "older": older,
        "download": urlencode({k: v for k, v in query.items() if v and k not in ("offset", "limit")}),
    }
    full, partial = "debugging/archive.html", "debugging/partials/archive_lines.html"
    response = render_page(request, full, partial, context, status=status)
    if status == 503:
        response["Retry-After"] = "5"
    return response


@login_required
def workload_archive_download(request: HttpRequest, namespace: str, workload: str) -> HttpResponse:
    """The matching lines as a text file, oldest first (``time cluster/pod/container line``), up to the archive's
    page limit; a narrower range gets what lies further back."""
    if not valid_name(workload):
        raise NotFound("No such workload.")
    project = resolve_namespace(request.user, namespace)
    _, params = _params(request, workload)
    page = read_archive_page(request.user, project.name, {**params, "order": "oldest", "limit": str(MAX_LIMIT)})
    text = "".join(f"{ln.time} {ln.cluster}/{ln.pod}/{ln.container} {ln.message}\n" for ln in page.lines)
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{workload}-logs.txt"'
    return response
