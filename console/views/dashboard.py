"""The dashboard: what needs the user's attention first (``console.overview``). The workload panel refreshes
itself through htmx (``dashboard_attention``), the rest is rendered with the page."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from base.permissions import is_platform_admin
from console import overview
from projects.models import Project


def _projects(request: HttpRequest) -> list[Project]:
    return list(Project.objects.visible_to(request.user).active()[:20])


@login_required
@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    projects = _projects(request)
    admin = is_platform_admin(request.user)
    context: dict[str, Any] = {
        "projects": projects,
        "attention": overview.workloads_needing_attention(projects),
        "requests": overview.requests_for(request.user),
        "recent": overview.recent_activity(request.user, projects),
        "admin": admin,
        "clusters": overview.clusters_needing_attention() if admin else [],
    }
    if projects:
        uses, problems = overview.quota_use(projects)
        context.update({"uses": uses, "use_problems": problems, "use_chart": overview.use_chart(uses)})
    return render(request, "console/dashboard.html", context)


@login_required
@require_GET
def dashboard_attention(request: HttpRequest) -> HttpResponse:
    """The workloads panel alone: the dashboard's htmx poll."""
    projects = _projects(request)
    context = {"attention": overview.workloads_needing_attention(projects), "projects": projects}
    return render(request, "console/partials/attention.html", context)
