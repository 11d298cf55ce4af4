"""A catalog page per kind: what it is for, a working example, the form generated from the kind's schema and a
YAML editor kept in sync through htmx, preview and create.

Every POST carries the whole editor: the generated fields, the YAML (``document``) and the YAML the fields were
rendered from (``yaml_base``); ``WorkloadForm.apply`` merges the field changes into the YAML (see forms.py).
Nothing here writes but ``create``, through ``services.submit_workload``; refusals come back inline with their paths.
"""

from __future__ import annotations

import time
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_POST

from base.errors import FieldError, Invalid, NotFound, ServiceError
from pincompute.documents import load_document
from pincompute.kinds import BY_PLURAL
from pincompute.specs import validate
from projects.access import visible_project
from projects.models import Project
from workloads import preview as previews
from workloads import preview_quota, services
from workloads.catalog import BY_KIND, CATALOG, CatalogEntry
from workloads.documents import dump_document
from workloads.examples import PICK, example
from workloads.forms import PROJECT_FIELD, WorkloadForm, add_item, get_path, remove_item

EDITOR = "workloads/partials/catalog_editor.html"
LAST_PROJECT = "catalog_project"  # session: {"name", "at" (epoch seconds)} of the last preview or create
THIS = "#6f42c1"  # the workload previewed, in the quota charts (tiers keep their own colours)
GRANT = "#212529"  # the grant: a bar-wide mark over each tier's stack


@login_required
def catalog(request: HttpRequest) -> HttpResponse:
    """The catalog's index: every kind by category."""
    categories: dict[str, list[CatalogEntry]] = {}
    for entry in CATALOG:
        categories.setdefault(entry.category, []).append(entry)
    return render(request, "workloads/catalog.html", {"categories": categories})


def _entry(kind: str) -> CatalogEntry:
    info = BY_PLURAL.get(kind)
    if info is None:
        raise Http404("No such workload kind.")
    return BY_KIND[info.kind]


def _projects(user: Any) -> list[str]:
    """The projects the user may submit to (developer or owner; active only)."""
    found = Project.objects.for_role(user, services.WRITE_ROLES).active().order_by("name")
    return list(found.values_list("name", flat=True))


def _state(
    request: HttpRequest,
    entry: CatalogEntry,
    document: dict[str, Any] | None,
    *,
    text: str | None = None,
    form: WorkloadForm | None = None,
    problems: list[FieldError] | None = None,
    refusal: ServiceError | None = None,
) -> dict[str, Any]:
    """The editor's context: ``document`` rendered in both panes (``text``: the YAML as typed, when it does not
    parse), the spec checks of the document, and the refusal of the last action beside the fields."""
    projects = _projects(request.user)
    if form is None:
        form = WorkloadForm(entry.kind, document or {}, projects)
    checks = validate(document) if document is not None else []
    if refusal is not None:
        form.show_errors(refusal)
    return {
        "entry": entry,
        "form": form,
        "yaml": text if text is not None else dump_document(document),
        "yaml_base": dump_document(form.base),
        "problems": problems or [],
        "checks": checks,
        "refusal": refusal,
        "projects": projects,
        "urls": {
            "sync": reverse("workloads:kind-sync", args=[entry.plural]),
            "preview": reverse("workloads:kind-preview", args=[entry.plural]),
            "create": reverse("workloads:kind-create", args=[entry.plural]),
        },
    }


@login_required
def kind_page(request: HttpRequest, kind: str) -> HttpResponse:
    entry = _entry(kind)
    document = example(entry.kind, project=_default_project(request, _projects(request.user)))
    context = _state(request, entry, document)
    context |= {"pick": PICK.get(entry.kind, ""), "example_yaml": dump_document(example(entry.kind))}
    return render(request, "workloads/catalog_kind.html", context)


def _default_project(request: HttpRequest, projects: list[str]) -> str:
    """``?project=``; else the project last used here (previewed or created in), unless the user has a newer one
    (the project just made); else the newest they may submit to."""
    chosen = request.GET.get("project", "")
    if chosen in projects:
        return chosen
    newest = (
        Project.objects.for_role(request.user, services.WRITE_ROLES)
        .active()
        .order_by("-created_at", "-id")
        .values_list("name", "created_at")
        .first()
    )
    last = request.session.get(LAST_PROJECT)
    used = isinstance(last, dict) and last.get("name") in projects
    if used and (newest is None or newest[1].timestamp() <= float(last.get("at") or 0)):
        return str(last["name"])
    return newest[0] if newest else "my-project"


def _used(request: HttpRequest, project: Project) -> None:
    request.session[LAST_PROJECT] = {"name": project.name, "at": time.time()}


def _read(request: HttpRequest, entry: CatalogEntry) -> tuple[WorkloadForm, dict[str, Any] | None, Invalid | None]:
    """The form bound to the POST (over the document it was rendered from), and the YAML as posted: parsed, or
    the reason it does not parse."""
    try:
        base = load_document(request.POST.get("yaml_base", ""))
    except Invalid:
        base = example(entry.kind)
    form = WorkloadForm(entry.kind, base, _projects(request.user), data=request.POST)
    try:
        return form, load_document(request.POST.get("document", "")), None
    except Invalid as exc:
        return form, None, exc


def _merged(request: HttpRequest, entry: CatalogEntry) -> tuple[WorkloadForm, dict[str, Any], str]:
    """The document to act on: the YAML with the form's changes merged in; ``Invalid`` when the YAML is not one."""
    form, document, error = _read(request, entry)
    if error is not None or document is None:
        raise error or Invalid("The document is empty.")
    return form, form.apply(document), request.POST.get("document", "")


@login_required
@require_POST
def kind_sync(request: HttpRequest, kind: str) -> HttpResponse:
    """Keep the panes in sync: ``source=form`` answers the YAML pane, ``source=yaml`` the form pane, an ``op``
    (add or remove a list item) the whole editor. YAML that does not parse is a 400 with the reason inline."""
    entry = _entry(kind)
    source, op = request.POST.get("source", "form"), request.POST.get("op", "")
    form, document, error = _read(request, entry)
    if error is not None or document is None:
        problems = [FieldError("document", error.message if error else "the document is empty")]
        context = _state(request, entry, None, text=request.POST.get("document", ""), form=form, problems=problems)
        context["yaml_base"] = request.POST.get("yaml_base", "")  # the fields still show it
        return render(request, _pane(source, op), {**context, "oob": True}, status=400)
    if source == "yaml" and not op:
        return render(request, _pane(source, op), {**_state(request, entry, document), "oob": True})
    merged = form.apply(document)
    if op.startswith("add:"):
        merged = add_item(form, merged, op[4:])
    elif op.startswith("remove:"):
        merged = remove_item(form, merged, op[7:])
    if op:
        return render(request, EDITOR, _state(request, entry, merged))
    context = _state(request, entry, merged, form=form)
    context["yaml_base"] = dump_document(merged)  # the fields now show what the new YAML holds
    return render(request, _pane(source, op), {**context, "oob": True})


def _pane(source: str, op: str) -> str:
    if op:
        return EDITOR
    return (
        "workloads/partials/catalog_form_pane.html" if source == "yaml" else "workloads/partials/catalog_yaml_pane.html"
    )


def _project_of(request: HttpRequest, document: dict[str, Any]) -> Project:
    name = str(get_path(document, ("spec", "project")) or request.POST.get(PROJECT_FIELD, "") or "")
    if not name:
        raise Invalid("Choose a project.", fields=[FieldError(PROJECT_FIELD, "choose a project")])
    return visible_project(request.user, name)


@login_required
@require_POST
def kind_preview(request: HttpRequest, kind: str) -> HttpResponse:
    entry = _entry(kind)
    try:
        _, document, _ = _merged(request, entry)
        project = _project_of(request, document)
        shown = previews.preview(project, document, actor=request.user, version=request.POST.get("version") or None)
        _used(request, project)
    except ServiceError as exc:
        context = {"entry": entry, "error": exc, "fields": previews.field_errors(exc)}
        return render(request, "workloads/partials/preview_refused.html", context, status=exc.status)
    context = {"entry": entry, "p": shown, "project": project, "charts": preview_charts(shown)}
    return render(request, "workloads/partials/preview.html", context)


@login_required
@require_POST
def kind_create(request: HttpRequest, kind: str) -> HttpResponse:
    entry = _entry(kind)
    document: dict[str, Any] | None = None
    form: WorkloadForm | None = None
    try:
        form, document, _ = _merged(request, entry)
        project = _project_of(request, document)
        accepted = services.submit_workload(project, document, actor=request.user, create_only=True)
        _used(request, project)
    except ServiceError as exc:
        if form is None:
            form, _, _ = _read(request, entry)
        status = 404 if isinstance(exc, NotFound) else exc.status
        fields = [f for f in exc.fields if f.path not in form.aliases and f.path not in form.fields]
        if document is not None:  # both panes show the document refused (the form's changes merged into the YAML)
            context = _state(request, entry, document, refusal=exc, problems=fields)
        else:  # YAML that does not parse: as typed, beside the fields it could not change
            text = request.POST.get("document", "")
            context = _state(request, entry, None, text=text, form=form, refusal=exc, problems=fields)
        if request.headers.get("HX-Request"):
            return render(request, EDITOR, context, status=status)
        context |= {"pick": PICK.get(entry.kind, ""), "example_yaml": dump_document(example(entry.kind))}
        return render(request, "workloads/catalog_kind.html", context, status=status)
    meta = accepted.manifest["metadata"]
    url = _detail_url(project.name, entry.kind, str(meta["name"]))
    if request.headers.get("HX-Request"):
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)


def _detail_url(project: str, kind: str, name: str) -> str:
    """The workload's page (``workloads:detail``, another change adds it); the list until it exists."""
    try:
        return reverse("workloads:detail", args=[project, kind, name])
    except NoReverseMatch:
        return reverse("workloads:list")


def preview_charts(shown: previews.Preview) -> dict[str, Any]:
    """Chart.js configs (partials/chart.html): placement scores, and per resource the quota per tier."""
    scores = [r for r in shown.placement.clusters if r.score is not None]
    charts: dict[str, Any] = {}
    if scores:
        charts["scores"] = {
            "type": "bar",
            "data": {
                "labels": [r.name for r in scores],
                "datasets": [{"label": "Score (0-100)", "data": [r.score for r in scores]}],
            },
            "options": {"indexAxis": "y", "plugins": {"legend": {"display": False}}, "scales": {"x": {"max": 100}}},
        }
    quota = []
    tiers = list(dict.fromkeys(r.tier for r in shown.quota.rows))
    for resource, label, unit, _ in (*preview_quota.RESOURCES, ("pods", "Pods", "pods", 1)):
        rows = [r for r in shown.quota.rows if r.resource == resource]
        if resource == "gpu" and not any(r.granted or r.this or r.held for r in rows):
            continue

        def series(
            name: str, of: str, stack: str, alpha: float, rows: list[preview_quota.QuotaRow] = rows
        ) -> dict[str, Any]:
            return {
                "label": name,
                "data": [r.shown(getattr(r, of)) for r in rows],
                "tiers": [t.label for t in tiers],
                "alpha": alpha,
                "stack": stack,
            }

        config = {
            "type": "bar",
            "data": {
                "labels": [t.value for t in tiers],
                "datasets": [
                    series("Admitted (held)", "held", "use", 0.85),
                    series("Waiting", "waiting", "use", 0.4),
                    {
                        **series("This workload", "this", "use", 1.0),
                        "backgroundColor": "#6f42c1",
                        "borderColor": "#6f42c1",
                    },
                    {
                        "type": "line",
                        "label": "Granted",
                        "data": [None if r.uncapped else r.shown(r.granted) for r in rows],  # no mark: no cap
                        "showLine": False,
                        "fill": False,
                        "pointStyle": "line",
                        "pointRadius": 16,
                        "pointHoverRadius": 16,
                        "pointBorderWidth": 3,
                        "borderColor": GRANT,
                        "backgroundColor": GRANT,
                    },
                ],
            },
            "options": {
                "unit": unit,
                "stacked": True,
                "plugins": {"legend": {"display": False}, "title": {"display": True, "text": label}},
            },
        }
        quota.append({"id": f"preview-quota-{resource}", "label": label, "chart": config})
    charts["quota"] = quota
    return charts
