"""Pages of what containers use against their requests and limits: one project's (narrowed to a workload or a pod,
rolled up by container, pod, workload), and every project the caller sees, most over-requested first. GETs only
read (``usage.use``, ``usage.use_history``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from base.errors import Invalid, NotFound, Unavailable
from base.permissions import is_platform_admin
from usage import use, use_history

TEMPLATE = "usage/use.html"


def _choices(request: HttpRequest) -> dict[str, Any]:
    g = request.GET
    return {
        "levels": use.LEVELS, "sorts": use.SORTS, "windows": tuple(use_history.WINDOWS),
        "level": g.get("level") or "workload", "sort": g.get("sort") or "waste_cost", "window": g.get("window") or "1h",
        "workload": g.get("workload") or "", "pod": g.get("pod") or "", "query": g.urlencode(),
        "currency": settings.USAGE_CURRENCY,
    }  # fmt: skip


def _answer(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    return render(request, TEMPLATE, context, status=status)


@login_required
@require_GET
def project_use_page(request: HttpRequest, name: str) -> HttpResponse:
    context = {**_choices(request), "project_name": name}
    try:
        seconds = use_history.window_seconds(request.GET.get("window"))
        project, report = use.project_use(request.user, name, request.GET)
        charts = use_history.history(project.namespace, report, seconds)
    except NotFound:
        raise Http404("No such project.") from None
    except Invalid as exc:
        return _answer(request, {**context, "errors": exc.fields or [exc.message]}, 400)
    except Unavailable as exc:
        return _answer(request, {**context, "unavailable": exc.message}, 503)
    return _answer(request, {**context, "report": report, "charts": charts})


@login_required
@require_GET
def fleet_use_page(request: HttpRequest) -> HttpResponse:
    context = {**_choices(request), "admin": is_platform_admin(request.user)}
    try:
        report = use.fleet_use(request.user, request.GET)
    except Invalid as exc:
        return _answer(request, {**context, "errors": exc.fields or [exc.message]}, 400)
    except Unavailable as exc:
        return _answer(request, {**context, "unavailable": exc.message}, 503)
    return _answer(request, {**context, "report": report})
