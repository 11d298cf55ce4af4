"""The project page's network section: what the project's NetworkPolicies admit on every member, and (owners
and platform admins) adding and removing openings. Thin over ``projects.network``: an add or a remove is a
replacement of the whole list, validated, audited and followed by every member like one through the API."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django_htmx.http import trigger_client_event

from base.digits import whole_number
from base.errors import Conflict, Invalid
from base.htmx import is_partial, render_page
from projects.access import require_role
from projects.models import Project
from projects.network import set_openings
from projects.network_plan import network_view
from projects.views import sections
from projects.views.common import role_in, visible_project
from projects.views.network_section import network_section

FULL = "projects/detail.html"
PARTIAL = "projects/partials/network.html"
CHANGED = "provisioning-changed"  # the provisioning section polls again: the members follow


def _render(request: HttpRequest, project: Project, section: dict[str, Any], *, status: int = 200) -> HttpResponse:
    context = sections.page(project, role_in(project, request.user), network=section)
    return render_page(request, FULL, PARTIAL, context, status=status)


def _added(request: HttpRequest) -> dict[str, Any]:
    """The add form's opening as the service reads it (the port as given when it is no number: the service names it)."""
    port = request.POST.get("port", "").strip()
    names = [n.strip() for n in request.POST.get("projects", "").split(",") if n.strip()]
    return {
        "port": port if (number := whole_number(port, max_digits=6)) is None else number,
        "protocol": request.POST.get("protocol", "TCP"),
        "projects": names,
        "ingress": request.POST.get("ingress") == "1",
    }


@login_required
@require_http_methods(["GET", "POST"])
def project_network(request: HttpRequest, name: str) -> HttpResponse:
    """GET: the section. POST ``op``: ``add`` (``port``, ``protocol``, ``projects`` comma-separated, ``ingress``=1)
    or ``remove`` (``index`` of the opening)."""
    project = visible_project(request, name)
    if request.method == "GET":
        return _render(request, project, network_section(project))
    require_role(project, request.user)  # authorization first: a developer gets 403 whatever the form holds
    openings = network_view(project)["openings"]
    op = request.POST.get("op", "add")
    form: dict[str, Any] = {}
    try:
        if op == "remove":
            index = request.POST.get("index", "")
            if not index.isdigit() or int(index) >= len(openings):
                raise Invalid.on("index", "No such opening; reload the page.")
            removed = openings.pop(int(index))
            set_openings(project, openings, actor=request.user)
            text = f"Closed {removed['protocol']} {removed['port']}."
        else:
            form = {**_added(request), "projects_text": request.POST.get("projects", "")}
            added = {k: v for k, v in form.items() if k != "projects_text"}
            set_openings(project, [*openings, added], actor=request.user)
            text = f"Opened {added['protocol']} {added['port']}."
    except (Invalid, Conflict) as exc:
        message = "; ".join(f.message for f in exc.fields) or exc.message
        section = network_section(project, error=message, form=form)
        return _render(request, project, section, status=exc.status)
    if not is_partial(request):  # post/redirect/get
        messages.success(request, f"{text} Every member follows.")
        return redirect(f"{reverse('projects:detail', args=[project.name])}#network")
    project.refresh_from_db()
    answer = _render(request, project, network_section(project, notice=f"{text} Every member follows."))
    return trigger_client_event(answer, CHANGED)
