"""The right-sizing panel on a workload's page (loaded by htmx beside the spec) and "Apply": the workload's own
edit form (``workloads/partials/spec.html``, which saves through ``workloads:spec``) with the recommended requests
filled in and the edit's preview (diff, quota fit, placement) already shown. Nothing here writes: saving is the
edit's, authorized and audited there."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from base.errors import Invalid, ServiceError, Unavailable
from projects.access import require_role
from rightsizing.services import WINDOWS, Advice, workload_advice
from workloads import preview as previews
from workloads.catalog import CATALOG
from workloads.documents import dump_document
from workloads.services import WRITE_ROLES
from workloads.views.catalog import preview_charts

PANEL = "rightsizing/partials/panel.html"


def _panel(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    return render(request, PANEL, {"windows": tuple(WINDOWS), **context}, status=status)


@login_required
@require_GET
def panel(request: HttpRequest, project: str, kind: str, name: str) -> HttpResponse:
    """Per container: request, use, recommendation, saving, confidence (another tenant's workload: 404)."""
    here = {"project": project, "kind": kind, "name": name, "window": request.GET.get("window") or "7d"}
    try:
        advice = workload_advice(request.user, project, kind, name, request.GET)
    except (Invalid, Unavailable) as exc:
        return _panel(request, {**here, "error": exc}, exc.status)
    return _panel(request, {**here, "advice": advice, "w": advice.found})


def _preview(request: HttpRequest, advice: Advice, document: dict[str, Any]) -> dict[str, Any]:
    found = advice.found
    entry = next(e for e in CATALOG if e.info.kind == found.kind)
    try:
        shown = previews.preview(found.project, document, actor=request.user, version=found.version)
    except ServiceError as exc:
        return {"entry": entry, "error": exc, "fields": previews.field_errors(exc), "refused": True}
    return {"entry": entry, "p": shown, "project": found.project, "charts": preview_charts(shown)}


@login_required
@require_GET
def apply_page(request: HttpRequest, project: str, kind: str, name: str) -> HttpResponse:
    """The edit with the recommended requests, previewed; a viewer is refused (403) as the edit refuses them."""
    advice = workload_advice(request.user, project, kind, name, request.GET)
    require_role(advice.found.project, request.user, WRITE_ROLES)
    context: dict[str, Any] = {"advice": advice, "w": advice.found, "edit": True, "version": advice.found.version}
    if not advice.recommended:  # said on the page (200: whether use has been scraped yet is no error of the request)
        return render(request, "rightsizing/apply.html", context)
    document = advice.document()
    context |= {"text": dump_document(document), "preview": _preview(request, advice, document)}
    return render(request, "rightsizing/apply.html", context)
