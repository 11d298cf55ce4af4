"""A project's shells and log streams, newest first (the ``DebugSession`` rows)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from base.permissions import is_platform_admin
from debugging.models import DebugSession
from projects.access import visible_project
from projects.models import ProjectRole

SESSIONS_SHOWN = 200


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
