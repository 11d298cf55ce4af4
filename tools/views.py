"""``/tools/``: what the platform offers, one line each, and the tools of the projects the user may see."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from tools.catalog import platform_tools, project_tools


@login_required
@require_GET
def tools_page(request: HttpRequest) -> HttpResponse:
    portal = request.build_absolute_uri("/").rstrip("/")
    context = {"tools": platform_tools(request.user, portal), "projects": project_tools(request.user)}
    return render(request, "tools/page.html", context)
