"""The revisions panel's context (the field diff of any two) and going back to a revision from the page: first what
changes going back (``workloads.rollback.plan_rollback``), then the rollback itself (``services.rollback_workload``:
authorized, checked as an edit, audited). Viewers get a 403, another tenant's workload is a 404."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from base.errors import Conflict, Invalid, Unavailable
from base.htmx import is_partial
from pincompute.federation.revisions import Change, spec_changes
from projects.access import require_role
from workloads import services
from workloads.lookup import Found, find_workload
from workloads.reads import Revision, revisions_of
from workloads.rollback import plan_rollback

CHANGED = "workload-changed"


def show(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def rows(changes: list[Change]) -> list[dict[str, str]]:
    return [{"path": c.path, "before": show(c.before), "after": show(c.after)} for c in changes]


def revisions_context(request: HttpRequest, found: Found, revisions: list[Revision]) -> dict[str, Any]:
    by_name = {r.name: r for r in revisions}
    a, b = by_name.get(request.GET.get("a", "")), by_name.get(request.GET.get("b", ""))
    if a is None and b is None and len(revisions) >= 2:
        a, b = revisions[1], revisions[0]  # the previous against the newest
    changes = rows(spec_changes(a.spec, b.spec)) if a is not None and b is not None else None
    return {"w": found, "revisions": revisions, "rev_a": a, "rev_b": b, "changes": changes}


def _revision(value: str | None) -> int | None:
    if value in (None, ""):
        return None
    if not value.isascii() or not value.isdigit() or len(value) > 9:
        raise Invalid.on("revision", "must be a revision's number (digits 0-9)")
    return int(value)


def _plan_context(found: Found, number: int | None) -> dict[str, Any]:
    plan = plan_rollback(found.obj, revisions_of(found.obj), number)
    return {"w": found, "plan": plan, "changes": rows(plan.changes)}


def _answer(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    template = "workloads/partials/rollback.html" if is_partial(request) else "workloads/rollback.html"
    return render(request, template, context, status=status)


@login_required
def rollback(request: HttpRequest, project: str, kind: str, name: str) -> HttpResponse:
    """GET ``?revision=N``: what going back to revision N changes, and the button that does it; POST: do it,
    conditional on the version the page showed."""
    found = find_workload(request.user, project, kind, name)
    require_role(found.project, request.user, services.WRITE_ROLES)  # a viewer is refused before anything is read
    source = request.POST if request.method == "POST" else request.GET
    try:
        number = _revision(source.get("revision"))
        context = _plan_context(found, number)
    except Invalid as exc:
        return _answer(request, {"w": found, "error": exc}, status=exc.status)
    if request.method != "POST":
        return _answer(request, context)
    try:
        done = services.rollback_workload(
            found.project, found.kind, found.name, revision=number, actor=request.user,
            version=request.POST.get("version") or None,
        )  # fmt: skip
    except (Invalid, Conflict, Unavailable, services.ExceedsGrant, services.NeverFits) as exc:
        return _answer(request, context | {"error": exc}, status=exc.status)
    what = f"{found.kind} {found.name}"
    if done.changed:
        said = f"Rolled {what} back to revision {done.revision}: the federation rolls it out now."
    else:
        said = f"Nothing changed: {what} already has revision {done.revision}'s spec."
    if not is_partial(request):
        messages.success(request, said)
        return redirect(reverse("workloads:detail", args=(found.project.name, found.kind, found.name)))
    response = render(request, "workloads/partials/rollback.html", {"w": found, "done": said})
    response["HX-Trigger"] = CHANGED
    return response
