"""The project page and its htmx sections: basics (owners; the Pod Security level for platform admins),
members, quota per tier with changes and requests, provisioning per cluster with retry, and archiving.

Views are thin: find the project as tenancy allows (404 for other tenants), parse the form for shape, call
the service, which checks the role (``Forbidden`` for a viewer becomes the 403 page) and validates; its
refusals are put beside the fields. Viewers get the same page with no controls.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import trigger_client_event

from base.digits import whole_number
from base.errors import Conflict, Invalid
from base.htmx import is_partial, render_form, render_page
from clusters.models import Cluster
from pincompute.tiers import Tier
from projects import tasks
from projects.access import require_role
from projects.forms import EditBasicsForm, MemberForm, PodSecurityForm, QuotaChangeForm, RoleForm
from projects.lifecycle import archive_project, set_pod_security, set_shell_recording, update_project
from projects.members import MemberInput, remove_member, set_member
from projects.models import Project
from projects.quota import change_quota
from projects.views import sections
from projects.views.common import add_errors, finish, role_in, visible_project

FULL = "projects/detail.html"
CHANGED = "provisioning-changed"  # the provisioning section listens for it and polls again
WATCH_POLLS = 15  # after a retry, the provisioning section polls this many more times


def _detail_url(project: Project) -> str:
    return reverse("projects:detail", args=[project.name])


def _context(request: HttpRequest, project: Project, name: str, section: dict[str, Any]) -> dict[str, Any]:
    """The section's own context for an htmx swap; the whole page, with this section as given, otherwise."""
    role = role_in(project, request.user)
    if is_partial(request):
        return {**sections.common(project, role), **section}
    return sections.page(project, role, **{name: section})


def _section(
    request: HttpRequest, project: Project, name: str, section: dict[str, Any], *, status: int = 200
) -> HttpResponse:
    partial = f"projects/partials/{name}.html"
    return render_page(request, FULL, partial, _context(request, project, name, section), status=status)


def _form_answer(
    request: HttpRequest, project: Project, name: str, section: dict[str, Any], form: Any, status: int
) -> HttpResponse:
    """``render_form``: errors beside the fields (``status``), else the section swapped or a redirect; a
    saved change tells the provisioning section to look again."""
    response = render_form(
        request,
        FULL,
        f"projects/partials/{name}.html",
        _context(request, project, name, section),
        form=form,
        success_url=f"{_detail_url(project)}#{name}",
        error_status=status,
    )
    return response if form.errors else trigger_client_event(response, CHANGED)


@login_required
@require_GET
def project_detail(request: HttpRequest, name: str) -> HttpResponse:
    project = visible_project(request, name)
    role = role_in(project, request.user)
    return render(request, FULL, sections.page(project, role))


@login_required
@require_http_methods(["GET", "POST"])
def project_basics(request: HttpRequest, name: str) -> HttpResponse:
    project = visible_project(request, name)
    role = role_in(project, request.user)
    if request.method == "GET":
        editing = request.GET.get("edit") == "1" and sections.can_manage(role)
        return _section(request, project, "basics", sections.basics(project, editing=editing))
    form = EditBasicsForm(request.POST)
    form.is_valid()
    status = 400
    try:
        project = update_project(project, dict(form.cleaned_data), actor=request.user)
    except (Invalid, Conflict) as exc:
        add_errors(exc, {}, form)
        status = exc.status
    section = sections.basics(project, form=form if form.errors else None, editing=bool(form.errors))
    return _form_answer(request, project, "basics", section, form, status)


@login_required
@require_POST
def project_pod_security(request: HttpRequest, name: str) -> HttpResponse:
    project = visible_project(request, name)
    form = PodSecurityForm(request.POST)
    form.is_valid()
    status = 400
    try:
        project = set_pod_security(project, form.cleaned_data.get("pod_security", ""), actor=request.user)
    except (Invalid, Conflict) as exc:
        add_errors(exc, {}, form)
        status = exc.status
    section = sections.basics(project, ps_form=form if form.errors else None)
    return _form_answer(request, project, "basics", section, form, status)


@login_required
@require_POST
def project_shell_recording(request: HttpRequest, name: str) -> HttpResponse:
    """``record_shells`` = 1 / 0: record shell transcripts of this project (owners and platform admins)."""
    project = visible_project(request, name)
    require_role(project, request.user)  # authorization first: a viewer gets 403 whatever the value
    value = request.POST.get("record_shells", "")
    if value not in ("0", "1"):
        raise Invalid.on("record_shells", "Give 1 (record shells) or 0 (do not).")
    project = set_shell_recording(project, value == "1", actor=request.user)
    text = f"Shells in {project.name} are {'now' if project.record_shells else 'no longer'} recorded."
    return _saved(request, project, "basics", sections.basics(project), text)


def _saved(request: HttpRequest, project: Project, name: str, section: dict[str, Any], text: str) -> HttpResponse:
    """A change went through: the section swapped in place (and provisioning told), or post/redirect/get."""
    if not is_partial(request):
        messages.success(request, text)
        return finish(request, f"{_detail_url(project)}#{name}")
    return trigger_client_event(_section(request, project, name, section), CHANGED)


@login_required
@require_http_methods(["GET", "POST"])
def project_members(request: HttpRequest, name: str) -> HttpResponse:
    """GET: the members section. POST ``op``: ``add`` (``add-kind``, ``add-name``, ``add-role``), or
    ``role`` / ``remove`` of one row (``kind``, ``name``; the new role in ``<kind>-<name>-role``)."""
    project = visible_project(request, name)
    if request.method == "GET":
        return _section(request, project, "members", sections.members(project))
    op = request.POST.get("op", "add")
    kind, subject = request.POST.get("kind", ""), request.POST.get("name", "")
    add_form = MemberForm(request.POST, prefix="add") if op == "add" else None
    try:
        if add_form is not None:
            add_form.is_valid()
            member = add_form.member()
            set_member(project, member, actor=request.user)
            text = f"{member.kind.title()} {member.name.strip()} is a {member.role} of {project.name} now."
        elif op == "remove":
            remove_member(project, kind, subject, actor=request.user)
            text = f"Removed {kind} {subject} from {project.name}."
        else:
            form = RoleForm(request.POST, prefix=f"{kind}-{subject}")
            form.is_valid()
            new_role = form.cleaned_data.get("role", "")
            set_member(project, MemberInput(kind, subject, new_role), actor=request.user)
            text = f"{kind.title()} {subject} is a {new_role} of {project.name} now."
    except (Invalid, Conflict) as exc:
        if add_form is not None:
            add_errors(exc, {}, add_form)
            section = sections.members(project, add_form=add_form)
        else:
            section = sections.members(project, row_errors={f"{kind}:{subject}": exc.message})
        return _section(request, project, "members", section, status=exc.status)
    if role_in(project, request.user) is None:  # they took themselves out
        messages.info(request, f"You are no longer a member of {project.name}.")
        return finish(request, reverse("projects:list"))
    return _saved(request, project, "members", sections.members(project, notice=text), text)


@login_required
@require_http_methods(["GET", "POST"])
def project_quota(request: HttpRequest, name: str) -> HttpResponse:
    """GET: the quota section. POST ``tier`` and that tier's amounts (``<tier>-cpu``...): a change applied
    at once, or a request for a platform admin; the answer says which."""
    project = visible_project(request, name)
    if request.method == "GET":
        return _section(request, project, "quota", sections.quota(project))
    require_role(project, request.user)  # authorization first: a viewer gets 403 whatever the tier
    tier = next((t for t in Tier if t.label == request.POST.get("tier", "")), None)
    if tier is None:  # a form value, not a path: a 400 naming it
        raise Invalid.on("tier", f"Choose one of {', '.join(t.label for t in Tier)}.")
    form = QuotaChangeForm(request.POST, prefix=tier.label)
    form.is_valid()
    try:
        change = change_quota(
            project, tier, form.quota(), actor=request.user, reason=form.cleaned_data.get("reason", "")
        )
    except (Invalid, Conflict) as exc:
        add_errors(exc, {}, form)
        return _section(request, project, "quota", sections.quota(project, forms={tier.label: form}), status=exc.status)
    if change.applied:
        text = f"Applied at once: the {tier.value} grant is {change.after.describe()}."
    else:
        text = f"Request #{change.request.pk} for {tier.value} waits for a platform admin's approval."
    section = sections.quota(project, result={"tier": tier, "change": change, "text": text})
    if change.applied or not is_partial(request):
        return _saved(request, project, "quota", section, text)
    return _section(request, project, "quota", section)


@login_required
@require_GET
def project_provisioning(request: HttpRequest, name: str) -> HttpResponse:
    """The provisioning section, polled while a cluster has not caught up (``watch``: polls left)."""
    project = visible_project(request, name)
    # The page writes this counter itself: any other value ("²", 5,000 digits, "-1") is ignored, not refused.
    polls = whole_number(request.GET.get("watch", ""), max_digits=6) or 0
    context = sections.provisioning(project, watch=min(polls, WATCH_POLLS) - 1)
    return _section(request, project, "provisioning", context)


@login_required
@require_POST
def project_retry(request: HttpRequest, name: str, cluster: str) -> HttpResponse:
    """Run the provisioning of the project on one cluster now (owners, developers, platform admins)."""
    project = visible_project(request, name)
    require_role(project, request.user, tasks.RETRY_ROLES)  # authorization first: a viewer gets 403 for any cluster
    target = get_object_or_404(Cluster, name=cluster)
    tasks.retry_on_cluster(project.pk, target.pk, actor=request.user)
    if not is_partial(request):
        messages.info(request, f"Retrying {project.name} on {target.name}.")
        return finish(request, _detail_url(project) + "#provisioning")
    return _section(request, project, "provisioning", sections.provisioning(project, watch=WATCH_POLLS))


@login_required
@require_POST
def project_archive(request: HttpRequest, name: str) -> HttpResponse:
    """Archive (owners, platform admins); refused with the workloads' names while any exist."""
    project = visible_project(request, name)
    try:
        archive_project(project, actor=request.user)
    except Conflict as exc:
        return _section(request, project, "archive", {"archive_error": exc.message}, status=exc.status)
    messages.success(request, f"Archived {project.name}; its namespaces are being removed from every cluster.")
    return finish(request, _detail_url(project))
