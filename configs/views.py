"""The Secrets and ConfigMaps pages of a project: the list with its create form, one object's edit form, delete.
Thin over ``configs.services``; a Secret's values are never rendered (an edit sets keys without showing them)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from base.errors import ServiceError, add_to_form
from base.htmx import is_partial, render_form, render_page
from configs import services
from configs.forms import CreateForm, EditForm
from pincompute.configs import DATA_MAX_BYTES, ConfigKind
from projects.access import require_role, visible_project

KINDS: dict[str, ConfigKind] = {"secrets": "Secret", "configmaps": "ConfigMap"}


def _kind(plural: str) -> ConfigKind:
    if plural not in KINDS:
        raise Http404("No such page.")
    return KINDS[plural]


def _list_context(request: HttpRequest, project: Any, plural: str, form: CreateForm | None) -> dict[str, Any]:
    kind = _kind(plural)
    listing = services.list_configs(project, kind, actor=request.user)
    can_write = services.may_write(project, request.user)
    return {
        "project": project,
        "plural": plural,
        "kind": kind,
        "listing": listing,
        "can_write": can_write,
        "form": form if form is not None else (CreateForm() if can_write else None),
        "limit": DATA_MAX_BYTES,
    }


@login_required
@require_http_methods(["GET", "POST"])
def config_list(request: HttpRequest, name: str, plural: str) -> HttpResponse:
    """GET: the project's Secrets or ConfigMaps. POST: create one (developers, owners, platform admins)."""
    project = visible_project(request.user, name)
    kind = _kind(plural)
    full, partial = "configs/list.html", "configs/partials/list.html"
    if request.method == "GET":
        return render_page(request, full, partial, _list_context(request, project, plural, None))
    require_role(project, request.user, services.WRITERS)  # authorization before the body
    form = CreateForm(request.POST)
    if form.is_valid():
        try:
            services.create_config(
                project, kind, form.cleaned_data["name"], form.cleaned_data["data"], actor=request.user
            )
        except ServiceError as exc:
            add_to_form(form, exc)
    saved = not form.errors
    context = _list_context(request, project, plural, None if saved else form)
    url = reverse("configs:list", args=[project.name, plural])
    return render_form(request, full, partial, context, form=form, success_url=url)


def _edit_context(request: HttpRequest, project: Any, plural: str, obj: str, form: EditForm | None) -> dict[str, Any]:
    kind = _kind(plural)
    item = services.get_config(project, kind, obj, actor=request.user)
    keys = [k.name for k in item.keys]
    values = services.configmap_values(project, obj, actor=request.user) if kind == "ConfigMap" else None
    return {
        "project": project,
        "plural": plural,
        "kind": kind,
        "item": item,
        "values": values,
        "can_write": services.may_write(project, request.user),
        "form": form or EditForm(initial={"version": item.version}, keys=keys),
        "limit": DATA_MAX_BYTES,
    }


@login_required
@require_http_methods(["GET", "POST"])
def config_edit(request: HttpRequest, name: str, plural: str, obj: str) -> HttpResponse:
    """GET: one object (keys set or unset, version, last writer; a ConfigMap's values). POST: set and remove keys."""
    project = visible_project(request.user, name)
    kind = _kind(plural)
    full, partial = "configs/edit.html", "configs/partials/edit.html"
    if request.method == "GET":
        return render_page(request, full, partial, _edit_context(request, project, plural, obj, None))
    require_role(project, request.user, services.WRITERS)
    keys = [k.name for k in services.get_config(project, kind, obj, actor=request.user).keys]
    form = EditForm(request.POST, keys=keys)
    if form.is_valid():
        got = form.cleaned_data
        try:
            services.update_config(
                project, kind, obj, got["data"], remove=got["remove"], version=got["version"], actor=request.user
            )
        except ServiceError as exc:
            add_to_form(form, exc)
    context = _edit_context(request, project, plural, obj, form if form.errors else None)
    url = reverse("configs:edit", args=[project.name, plural, obj])
    return render_form(request, full, partial, context, form=form, success_url=url)


@login_required
@require_http_methods(["POST"])
def config_delete(request: HttpRequest, name: str, plural: str, obj: str) -> HttpResponse:
    project = visible_project(request.user, name)
    services.delete_config(project, _kind(plural), obj, actor=request.user)
    url = reverse("configs:list", args=[project.name, plural])
    if is_partial(request):
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)
