"""The project's deleted workloads and one deleted workload's read-only page: its spec at deletion, its recorded
history (filtered by time and kind of entry, htmx-swapped) and a link to its logs in the archive (the
debugging app's page: this layer may not import it)."""

from __future__ import annotations

from typing import Any

import yaml
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from base.errors import Invalid
from base.htmx import is_partial, render_page
from workloads.api.representation import parse_moment
from workloads.history import services
from workloads.history.models import CATEGORIES


@login_required
def deleted_list(request: HttpRequest, project: str) -> HttpResponse:
    found, records = services.deleted_workloads(request.user, project)
    days = f"{settings.HISTORY_RETENTION_DAYS} days"
    return render(
        request, "workloads/deleted_list.html", {"project": found, "records": records, "retention_days": days}
    )


def window_of(request: HttpRequest) -> tuple[services.Window, dict[str, str]]:
    """The filter form's values as a window; ``Invalid`` naming the field."""
    q = request.GET
    since = parse_moment(q["since"], "since") if q.get("since") else None
    until = parse_moment(q["until"], "until") if q.get("until") else None
    kinds = services.categories_from(q.getlist("category"))
    return services.Window(since, until, kinds), {"since": q.get("since", ""), "until": q.get("until", "")}


@login_required
def deleted_detail(request: HttpRequest, project: str, kind: str, name: str) -> HttpResponse:
    record = services.deleted_workload(request.user, project, kind, name)  # tenancy before the filters
    context: dict[str, Any] = {"r": record, "project": record.project, "categories": CATEGORIES, "errors": {}}
    status = 200
    try:
        window, shown = window_of(request)
    except Invalid as exc:
        window, shown, status = services.Window(), {}, 400
        context["errors"] = {f.path: f.message for f in exc.fields} or {"": exc.message}
    context |= {"entries": services.entries_of(record, window), "q": shown, "chosen": window.categories}
    if not is_partial(request):
        context["spec"] = yaml.safe_dump(record.manifest, sort_keys=False)
    return render_page(
        request, "workloads/deleted_detail.html", "workloads/partials/history.html", context, status=status
    )
