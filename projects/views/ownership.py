"""The project page's ownership section: the team, the on-call contact and the links; owners and platform admins
edit them (``projects.ownership.set_ownership``), every refusal beside the field it names."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from base.errors import Conflict, Invalid
from base.htmx import is_partial, render_page
from pincompute.ownership import MAX_LINKS
from projects.access import require_role
from projects.models import Project
from projects.ownership import set_ownership
from projects.views import sections
from projects.views.common import can_manage, role_in, visible_project
from projects.views.ownership_section import BLANK_ROWS, ownership_section

FULL = "projects/detail.html"
PARTIAL = "projects/partials/ownership.html"


def _render(request: HttpRequest, project: Project, section: dict[str, Any], *, status: int = 200) -> HttpResponse:
    context = sections.page(project, role_in(project, request.user), ownership=section)
    return render_page(request, FULL, PARTIAL, context, status=status)


def _posted_rows(request: HttpRequest) -> list[dict[str, str]]:
    count = min(int(n) if (n := request.POST.get("rows", "0")).isdigit() else 0, MAX_LINKS + BLANK_ROWS)
    return [
        {key: request.POST.get(f"link-{i}-{key}", "").strip() for key in ("kind", "title", "url")} for i in range(count)
    ]


def _row_errors(exc: Invalid, sent: list[int]) -> dict[str, str]:
    """The service's paths (``links[1].url``: the second row sent) as the form's rows (``links[3].url``)."""
    errors: dict[str, str] = {}
    for error in exc.fields or ():
        path = error.path
        if path.startswith("links[") and "]" in path:
            index, rest = path[6:].split("]", 1)
            if index.isdigit() and int(index) < len(sent):
                path = f"links[{sent[int(index)]}]{rest}"
        errors.setdefault(path, error.message)
    return errors


@login_required
@require_http_methods(["GET", "POST"])
def project_ownership(request: HttpRequest, name: str) -> HttpResponse:
    """GET: the section (``?edit=1``: the form, for owners). POST: ``team``, ``oncall``, ``rows`` and
    ``link-N-kind|title|url`` per row; a row without title and url is dropped."""
    project = visible_project(request, name)
    if request.method == "GET":
        editing = request.GET.get("edit") == "1" and can_manage(role_in(project, request.user)) and project.is_active
        return _render(request, project, ownership_section(project, editing=editing))
    require_role(project, request.user)  # authorization first: a developer gets 403 whatever the form holds
    rows = _posted_rows(request)
    sent = [i for i, row in enumerate(rows) if row["title"] or row["url"]]
    form = {"team": request.POST.get("team", ""), "oncall": request.POST.get("oncall", "")}
    body = {**form, "links": [rows[i] for i in sent]}
    try:
        set_ownership(project, body, actor=request.user)
    except (Invalid, Conflict) as exc:
        errors = _row_errors(exc, sent) if isinstance(exc, Invalid) else {"": exc.message}
        section = ownership_section(project, editing=True, rows=rows, form=form, errors=errors)
        return _render(request, project, section, status=exc.status)
    if not is_partial(request):  # post/redirect/get
        messages.success(request, "Ownership saved.")
        return redirect(f"{reverse('projects:detail', args=[project.name])}#ownership")
    project.refresh_from_db()
    return _render(request, project, ownership_section(project, notice="Saved."))
