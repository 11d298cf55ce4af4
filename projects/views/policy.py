"""The project page's policy section (every member reads it; platform admins edit it in place) and the page where
platform admins edit the defaults new projects start with. Thin over ``projects.policy``."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django_htmx.http import trigger_client_event

from base.errors import Conflict, Invalid
from base.htmx import is_partial, render_page
from projects.access import require_platform_admin
from projects.models import Project
from projects.policy import (
    read_policy_defaults,
    require_policy_writer,
    set_policy_defaults,
    set_project_policy,
)
from projects.policy_form import PolicyForm, initial_of
from projects.views import sections
from projects.views.common import role_in, visible_project
from projects.views.policy_section import policy_section

FULL = "projects/detail.html"
PARTIAL = "projects/partials/policy.html"
DEFAULTS_PAGE = "projects/policy_defaults.html"
DEFAULTS_PARTIAL = "projects/partials/policy_defaults.html"
CHANGED = "provisioning-changed"  # the host namespace follows: the provisioning section polls again


def _render(request: HttpRequest, project: Project, section: dict[str, Any], *, status: int = 200) -> HttpResponse:
    context = sections.page(project, role_in(project, request.user), policy=section)
    return render_page(request, FULL, PARTIAL, context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def project_policy(request: HttpRequest, name: str) -> HttpResponse:
    """GET: the section. POST (platform admins): the whole policy from the form."""
    project = visible_project(request, name)
    role = role_in(project, request.user)
    if request.method == "GET":
        return _render(request, project, policy_section(project, role))
    require_policy_writer(project, request.user)  # authorization first: a member gets 403 whatever the form holds
    form = PolicyForm(request.POST)
    if form.is_valid():
        try:
            project = set_project_policy(project, form.document(), actor=request.user)
        except (Invalid, Conflict) as exc:
            form.add_service_errors(exc)
    if form.errors:
        return _render(request, project, policy_section(project, role, form=form), status=400)
    if not is_partial(request):  # post/redirect/get
        messages.success(request, f"Saved the policy of {project.name}; the host's admission follows it.")
        return redirect(reverse("projects:detail", args=[project.name]) + "#policy")
    return trigger_client_event(_render(request, project, policy_section(project, role)), CHANGED)


@login_required
@require_http_methods(["GET", "POST"])
def policy_defaults(request: HttpRequest) -> HttpResponse:
    """The policy new projects start with (platform admins only)."""
    require_platform_admin(request.user, "edit the policy defaults")
    if request.method == "GET":
        form = PolicyForm(initial=initial_of(read_policy_defaults(actor=request.user)))
        return render_page(request, DEFAULTS_PAGE, DEFAULTS_PARTIAL, {"policy_form": form})
    form = PolicyForm(request.POST)
    saved = False
    if form.is_valid():
        try:
            set_policy_defaults(form.document(), actor=request.user)
            saved = True
        except Invalid as exc:
            form.add_service_errors(exc)
    if not saved:
        return render_page(request, DEFAULTS_PAGE, DEFAULTS_PARTIAL, {"policy_form": form}, status=400)
    if not is_partial(request):
        messages.success(request, "Saved the policy defaults: projects onboarded from now on start with them.")
        return redirect(reverse("projects:policy-defaults"))
    form = PolicyForm(initial=initial_of(read_policy_defaults(actor=request.user)))
    return render_page(request, DEFAULTS_PAGE, DEFAULTS_PARTIAL, {"policy_form": form, "saved": True})
