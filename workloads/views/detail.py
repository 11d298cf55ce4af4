"""One workload's page and its actions: thin views over ``workloads.lookup`` and ``workloads.reads`` (reads, from
the watch caches) and ``workloads.services`` (the writes), which authorize and audit.

Refusals: another tenant's or a missing workload is a 404 (the middleware's page), a viewer's write a 403.
A stale version (409) and an invalid input (400) come back inline in the panel that sent them; a host that
cannot be reached (503) comes back as a message in that panel for htmx, as the error page otherwise.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from base.digits import whole_number
from base.errors import Conflict, Invalid, NotFound, ServiceError, Unavailable
from base.htmx import is_partial, render_page
from clusters import runtime
from clusters.health import is_stale, member_freshness, not_synced, staleness
from pincompute.documents import load_document
from pincompute.federation.revisions import spec_changes
from pincompute.kinds import KINDS
from pincompute.ownership import oncall_href, workload_ownership
from projects.access import require_role
from projects.ownership import ownership_of
from workloads import documents, host, services
from workloads import preview as previews
from workloads.catalog import CATALOG
from workloads.diagnosis import diagnosis_of
from workloads.lookup import Found, find_workload
from workloads.reads import age, condition, pods_of, revisions_of, row_of, shards_of
from workloads.timeline import timeline
from workloads.views.catalog import preview_charts
from workloads.views.revisions import revisions_context, rows

POLL_SECONDS = 5
CHANGED = "workload-changed"  # HX-Trigger after a write: the status panel refreshes at once
_INLINE = (Invalid, Conflict, Unavailable)


def _args(found: Found) -> tuple[str, str, str]:
    return (found.project.name, found.kind, found.name)


def _url(name: str, found: Found, **kwargs: Any) -> str:
    return reverse(f"workloads:{name}", args=(*_args(found), *kwargs.values()))


def _containers(found: Found) -> list[str]:
    spec = found.obj.get("spec") or {}
    pod = spec.get("template") if found.kind == "PinApp" else spec
    return [str(c.get("name")) for c in (pod or {}).get("containers") or [] if c.get("name")]


def _actions(found: Found) -> list[dict[str, str]]:
    """The operations that apply to this workload now, as buttons (operation, label, icon, question)."""
    info = KINDS[found.kind]
    ops = (found.obj.get("spec") or {}).get("operations") or {}
    what = f"{found.kind} {found.name}"
    found_ops: list[dict[str, str]] = []

    def add(op: str, label: str, icon: str, question: str) -> None:
        found_ops.append({"op": op, "label": label, "icon": icon, "question": question})

    if found.kind != "PinPod":  # a PinPod stops; it has no pause
        if ops.get("paused"):
            add("resume", "Resume", "play", f"Resume {what}?")
        else:
            add("pause", "Pause", "pause", f"Pause {what}? Its pods scale to zero; the spec is kept.")
    if ops.get("stopped"):
        add("start", "Start", "play-circle", f"Start {what}?")
    else:
        add("stop", "Stop", "stop-circle", f"Stop {what}? Its pods are removed on every cluster.")
    if info.runs_pods:
        add("restart", "Restart", "arrow-repeat", f"Restart every pod of {what}, on every cluster?")
    return found_ops


def _host_problems() -> list[str]:
    """What the page says when the host's cache it reads from is unreachable or stale (the list page says it too):
    otherwise the last status heard looks current."""
    host = runtime.host_cache()
    if host is None:
        return []
    if not host.synced:
        return [not_synced("the host", host) + ": this page shows what it last heard"]
    seconds = staleness(host) if hasattr(host, "stats") and is_stale(host) else None
    if seconds is None:
        return []
    since = datetime.fromtimestamp(time.time() - seconds, UTC).strftime("%H:%M:%S UTC")
    return [f"the host: stale since {since} (no word from its apiserver): this page shows what it last heard"]


def _status_context(found: Found) -> dict[str, Any]:
    obj = found.obj
    pods, pod_problems = pods_of(found.kind, found.project.namespace, found.name)
    placement = (obj.get("status") or {}).get("placement") or {}
    return {
        "w": found,
        "row": row_of(obj, KINDS[found.kind], found.project.name),
        "conditions": [
            condition(obj, t) | {"age": age(condition(obj, t).get("lastTransitionTime"))}
            for t in ("Admitted", "Scheduled", "Ready", "Progressing", "Degraded")
            if condition(obj, t)
        ],
        "shards": shards_of(obj),
        "placement": placement,
        "pods": pods,
        "pod_problems": pod_problems,
        "host_problems": _host_problems(),
        "freshness": member_freshness(),  # a badge beside each cluster's shard and pods when it is not fresh
        "diagnosis": diagnosis_of(found.project, obj),  # why it is (not) running, at the top
        "poll_seconds": POLL_SECONDS,
    }


def _spec_context(
    found: Found, *, edit: bool = False, text: str = "", version: str = "", **extra: Any
) -> dict[str, Any]:
    return {
        "w": found,
        "yaml": documents.dump_document(documents.editable(found.obj)),
        "edit": edit,
        "text": text or documents.dump_document(documents.editable(found.obj)),
        "version": version or found.version,
        **extra,
    }


def _page_context(request: HttpRequest, found: Found) -> dict[str, Any]:
    revisions = revisions_of(found.obj)
    return {
        **_status_context(found),
        **revisions_context(request, found, revisions),
        **_spec_context(found),
        "entries": timeline(found.obj, revisions),
        "actions": _actions(found),
        "containers": _containers(found),
        "scalable": KINDS[found.kind].scalable,
        "replicas": (found.obj.get("spec") or {}).get("replicas"),
        **_ownership_context(found),
    }


_OWNED = {"team": "team", "oncall": "on-call contact", "links": "links"}


def _ownership_context(found: Found) -> dict[str, Any]:
    owned = workload_ownership(found.obj, ownership_of(found.project))
    names = [_OWNED[name] for name in owned.inherited]
    inherited = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    return {"ownership": owned, "oncall_href": oncall_href(owned.oncall), "inherited": inherited}


@login_required
def detail(request: HttpRequest, project: str, kind: str, name: str) -> HttpResponse:
    found = find_workload(request.user, project, kind, name)
    return render(request, "workloads/detail.html", _page_context(request, found))


@login_required
def status_panel(request: HttpRequest, project: str, kind: str, name: str) -> HttpResponse:
    found = find_workload(request.user, project, kind, name)
    return render_page(
        request,
        "workloads/detail.html",
        "workloads/partials/detail_status.html",
        _page_context_or_status(request, found),
    )


def _page_context_or_status(request: HttpRequest, found: Found) -> dict[str, Any]:
    return _status_context(found) if is_partial(request) else _page_context(request, found)


@login_required
def timeline_panel(request: HttpRequest, project: str, kind: str, name: str) -> HttpResponse:
    found = find_workload(request.user, project, kind, name)
    if not is_partial(request):
        return render(request, "workloads/detail.html", _page_context(request, found))
    context = {
        "w": found,
        "entries": timeline(found.obj, revisions_of(found.obj)),
        "poll_seconds": POLL_SECONDS,
        "host_problems": _host_problems(),
    }
    return render(request, "workloads/partials/timeline.html", context)


@login_required
def revisions_panel(request: HttpRequest, project: str, kind: str, name: str) -> HttpResponse:
    found = find_workload(request.user, project, kind, name)
    if not is_partial(request):
        return render(request, "workloads/detail.html", _page_context(request, found))
    context = revisions_context(request, found, revisions_of(found.obj))
    return render(request, "workloads/partials/revisions.html", context)


def _answer_refusal(
    request: HttpRequest, found: Found, exc: ServiceError, partial: str, context: dict[str, Any]
) -> HttpResponse:
    """An inline refusal in ``partial`` for htmx (400/409/503); without htmx the page with it inline
    (400/409) or the error page (503)."""
    if is_partial(request):
        response = render(request, partial, context | {"error": exc}, status=exc.status)
    elif isinstance(exc, (Invalid, Conflict)):
        full = _page_context(request, found) | context | {"error": exc}
        response = render(request, "workloads/detail.html", full, status=exc.status)
    else:
        raise exc
    if isinstance(exc, Unavailable):
        response["Retry-After"] = str(max(1, round(exc.retry_after)))
    return response


@login_required
def spec_panel(request: HttpRequest, project: str, kind: str, name: str) -> HttpResponse:
    """The spec as YAML; ``?edit=1`` the edit form; POST: the edit, conditional on the version it was read at."""
    found = find_workload(request.user, project, kind, name)
    if request.method != "POST":
        edit = request.GET.get("edit") == "1" and found.can_write
        if not is_partial(request):
            return render(request, "workloads/detail.html", _page_context(request, found) | {"edit": edit})
        return render(request, "workloads/partials/spec.html", _spec_context(found, edit=edit))
    require_role(found.project, request.user, services.WRITE_ROLES)  # a viewer's edit is a 403 whatever it says
    text = request.POST.get("document", "")
    version = request.POST.get("version", "")
    try:
        document = load_document(text)
        _same_object(found, document)
        accepted = services.submit_workload(found.project, document, actor=request.user, version=version or None)
    except (Invalid, Conflict, Unavailable) as exc:
        extra: dict[str, Any] = {}
        if isinstance(exc, Conflict):
            extra = _conflict(found, text, version)
        return _answer_refusal(
            request,
            found,
            exc,
            "workloads/partials/spec.html",
            _spec_context(found, edit=True, text=text, **({"version": version} | extra)),
        )
    message = f"Saved {found.kind} {found.name}: version {accepted.version}."
    if not is_partial(request):
        messages.success(request, message)
        return redirect(_url("detail", found))
    updated = Found(found.project, found.kind, found.name, accepted.manifest, found.role)
    response = render(request, "workloads/partials/spec.html", _spec_context(updated, saved=message))
    response["HX-Trigger"] = CHANGED
    return response


def _container_restart_said(what: str, container: str, pod: str) -> str:
    """What a container restart does, said as the operator does it (``reconciler._restart_container``): SIGTERM to
    the container's PID 1 through exec, so the kubelet restarts it in the same pod (its restart count rises); the
    pod is deleted only where that cannot be done. The workload's events then say which it was."""
    where = f"pod {pod}" if pod else "each running pod"
    return (
        f"Restart of container {container} requested for {what}: the operator restarts it in place in {where} "
        "(SIGTERM to its PID 1; the restart count rises), or deletes the pod where it cannot exec (a new pod). "
        "The events say which was done."
    )


@login_required
@require_POST
def edit_preview(request: HttpRequest, project: str, kind: str, name: str) -> HttpResponse:
    """What the edit in the spec form would do, before it is saved: the preview service's diff against the
    live spec and the generated objects, placement and quota fit (``catalog``'s preview partial)."""
    found = find_workload(request.user, project, kind, name)
    entry = next(e for e in CATALOG if e.info.kind == found.kind)
    try:
        document = load_document(request.POST.get("document", ""))
        _same_object(found, document)
        shown = previews.preview(
            found.project, document, actor=request.user, version=request.POST.get("version") or None
        )
    except ServiceError as exc:
        context = {"entry": entry, "error": exc, "fields": previews.field_errors(exc)}
        return render(request, "workloads/partials/preview_refused.html", context, status=exc.status)
    context = {"entry": entry, "p": shown, "project": found.project, "charts": preview_charts(shown)}
    return render(request, "workloads/partials/preview.html", context)


def _same_object(found: Found, document: dict[str, Any]) -> None:
    meta = document.get("metadata") if isinstance(document.get("metadata"), dict) else {}
    if document.get("kind") != found.kind:
        raise Invalid.on("kind", f"must stay {found.kind}: to make another workload, use the catalog")
    if (meta or {}).get("name") != found.name:
        raise Invalid.on("metadata.name", f"must stay {found.name}: to make another workload, use the catalog")


def _conflict(found: Found, text: str, version: str) -> dict[str, Any]:
    """What a stale edit shows: both versions, the live one's spec against the edited one's."""
    try:
        mine = load_document(text).get("spec") or {}
    except Invalid:
        mine = {}
    try:
        live = host.get(found.kind, found.project.namespace, found.name)  # the version the 409 named
    except (NotFound, Unavailable):
        live = found.obj
    changes = rows(spec_changes(live.get("spec") or {}, mine))
    live_version = host.version_of(live)
    return {
        "conflict": {"mine": version, "live": live_version, "changes": changes},
        "live_yaml": documents.dump_document(documents.editable(live)),
        # Sending the form again applies the edit over the live version the user has now seen.
        "version": live_version,
    }


def _actions_context(found: Found, **extra: Any) -> dict[str, Any]:
    return {
        "w": found,
        "actions": _actions(found),
        "containers": _containers(found),
        "scalable": KINDS[found.kind].scalable,
        "replicas": (found.obj.get("spec") or {}).get("replicas"),
        "pods": pods_of(found.kind, found.project.namespace, found.name)[0],
        **extra,
    }


def _int(value: str | None) -> int | None:
    """Digits only: Python's ``int`` also reads "4_0" (40), "+4" and other scripts' digits ("٤")."""
    if value in (None, ""):
        return None
    number = whole_number(value, max_digits=6)
    if number is None:
        raise Invalid.on("replicas", "must be a whole number (digits 0-9)")
    return number


@login_required
@require_POST
def operate(request: HttpRequest, project: str, kind: str, name: str, operation: str) -> HttpResponse:
    found = find_workload(request.user, project, kind, name)
    try:
        outcome = services.operate_workload(
            found.project,
            found.kind,
            found.name,
            operation,
            actor=request.user,
            replicas=_int(request.POST.get("replicas")),
            container=request.POST.get("container", ""),
            pod=request.POST.get("pod", ""),
            version=request.POST.get("version") or None,
        )
    except _INLINE as exc:
        return _answer_refusal(request, found, exc, "workloads/partials/actions.html", _actions_context(found))
    what = f"{found.kind} {found.name}"
    if outcome.changed and operation == "restart-container":
        done = _container_restart_said(what, request.POST.get("container", ""), request.POST.get("pod", ""))
    elif outcome.changed:
        done = f"{operation.replace('-', ' ').capitalize()} requested for {what}."
    else:  # the spec already says so: nothing was written
        done = f"Nothing changed: {what} is already as {operation.replace('-', ' ')} would make it."
    if not is_partial(request):
        messages.success(request, done)
        return redirect(_url("detail", found))
    updated = Found(found.project, found.kind, found.name, outcome.obj, found.role)
    response = render(request, "workloads/partials/actions.html", _actions_context(updated, done=done))
    response["HX-Trigger"] = CHANGED
    return response


@login_required
@require_POST
def delete(request: HttpRequest, project: str, kind: str, name: str) -> HttpResponse:
    found = find_workload(request.user, project, kind, name)
    try:
        services.delete_workload(
            found.project, found.kind, found.name, actor=request.user, version=request.POST.get("version") or None
        )
    except _INLINE as exc:
        return _answer_refusal(request, found, exc, "workloads/partials/actions.html", _actions_context(found))
    messages.success(request, f"Deleting {found.kind} {found.name}: the federation removes its shards first.")
    target = reverse("workloads:list") + f"?project={found.project.name}"
    if is_partial(request):
        response = HttpResponse(status=200)
        response["HX-Redirect"] = target
        return response
    return redirect(target)
