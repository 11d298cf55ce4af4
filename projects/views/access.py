"""The project's time-limited access page (``/projects/<name>/access/``): ask for a role or sidecar exec, the owners'
pending requests with approve and deny, the live grants with their time left and a revoke button, and the owners'
direct grant. One htmx section (``#access``) that every form swaps; a plain POST redirects back to the page.

A project the user cannot see is a 404 like everywhere: another tenant's project is granted by its owners directly
(``Grant``), never asked for blind, which would disclose whether it exists.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from base.errors import Conflict, Invalid
from base.htmx import is_partial, render_page
from projects.access import ADMIN
from projects.access_requests import services
from projects.access_requests.models import Access
from projects.access_requests.reads import find_grant, find_request, live_grants_of, requests_of, sees_all
from projects.models import Project
from projects.views.common import role_in, visible_project

DURATIONS = [(3600, "1 hour"), (4 * 3600, "4 hours"), (8 * 3600, "8 hours"), (86400, "1 day"), (3 * 86400, "3 days")]
DURATIONS += [(7 * 86400, "7 days")]


def _number(text: str) -> Any:
    return int(text) if text.strip().isdigit() else text


def _context(project: Project, user: Any, role: str, *, errors: dict[str, str] | None = None, notice: str = "") -> dict:
    owner = sees_all(role)
    return {
        "project": project,
        "role": role,
        "owner": owner,
        "is_admin": role == ADMIN,
        "pending": requests_of(project, user, role, "pending"),
        "decided": requests_of(project, user, role).exclude(state="pending")[:10],
        "grants": live_grants_of(project, user, role),
        "accesses": Access.choices,
        "durations": DURATIONS,
        "errors": errors or {},
        "notice": notice,
    }


@login_required
@require_http_methods(["GET", "POST"])
def project_access(request: HttpRequest, name: str) -> HttpResponse:
    """POST ``op``: ``request`` (access, duration_seconds, reason), ``approve`` / ``deny`` (id, reason),
    ``grant`` (user, access, duration_seconds, reason), ``revoke`` (id)."""
    project = visible_project(request, name)
    role = role_in(project, request.user) or ""
    status, errors, notice = 200, {}, ""
    if request.method == "POST":
        post, actor, op = request.POST, request.user, request.POST.get("op", "")
        try:
            if op == "request":
                row = services.request_access(
                    project,
                    access=post.get("access", ""),
                    duration_seconds=_number(post.get("duration_seconds", "")),
                    reason=post.get("reason", ""),
                    actor=actor,
                )
                notice = f"Asked for {row.access}; the approvers see it now."
            elif op in ("approve", "deny"):
                row = find_request(project, actor, ADMIN, post.get("id", ""))
                decide = services.approve_access_request if op == "approve" else services.deny_access_request
                row = decide(row, actor=actor, reason=post.get("reason", ""))
                notice = f"{row.requested_by.get_username()}'s request for {row.access} {row.state}."
            elif op == "grant":
                grant = services.grant_access(
                    project,
                    username=post.get("user", ""),
                    access=post.get("access", ""),
                    duration_seconds=_number(post.get("duration_seconds", "")),
                    reason=post.get("reason", ""),
                    actor=actor,
                )
                notice = f"{grant.user.get_username()} has {grant.access} until {grant.ends_at:%Y-%m-%d %H:%M} UTC."
            elif op == "revoke":
                grant = find_grant(project, actor, ADMIN, post.get("id", ""))
                services.revoke_access_grant(grant, actor=actor)
                notice = f"{grant.user.get_username()}'s {grant.access} access ended."
            else:
                raise Invalid.on("op", f"{op!r} is not an operation of this page.")
        except (Invalid, Conflict) as exc:
            status = exc.status
            errors = {f.path: f.message for f in exc.fields} or {"": exc.message}
        if status == 200 and not is_partial(request):
            return redirect(reverse("projects:access", args=[project.name]))
        role = role_in(project, request.user) or ""
    context = _context(project, request.user, role, errors=errors, notice=notice)
    return render_page(request, "projects/access.html", "projects/partials/access.html", context, status=status)
