"""Pages: a project's usage and cost, the report over every project the caller sees (admins: by team or cost center,
with idle capacity), the price sheet (admins edit it), a CSV of any report, and a member's capacity history chart
(a partial the cluster page loads). GETs only read; the price form POSTs to ``usage.services.set_prices``."""

from __future__ import annotations

import csv
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from base.errors import Invalid, NotFound, ServiceError
from base.permissions import is_platform_admin
from usage import charts, forecast, prices, queries, services
from usage.costmodel import DIMENSIONS, RESOURCES, TIERS, Report

WINDOWS = (("24h", "24 hours"), ("today", "today"), ("7d", "7 days"), ("30d", "30 days"), ("month", "this month"))
STEPS = (("1h", "hourly"), ("1d", "daily"))
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CSV_COLUMNS = (
    "step_start", "step_end", "name", *DIMENSIONS, "cpu_core_hours", "cpu_request_core_hours", "ram_gib_hours",
    "ram_request_gib_hours", "gpu_hours", "gpu_request_hours", "cpu_cost", "ram_cost", "gpu_cost", "total_cost",
    "cpu_use_core_hours", "ram_use_gib_hours", "cpu_request_cost", "ram_request_cost", "gpu_request_cost",
    "total_request_cost", "over_request_cost",
)  # fmt: skip


def _choices(request: HttpRequest, aggregate: str) -> dict[str, Any]:
    return {
        "windows": WINDOWS, "steps": STEPS, "window": request.GET.get("window") or "7d",
        "step": request.GET.get("step") or "1d", "aggregate": request.GET.get("aggregate") or aggregate,
        "currency": settings.USAGE_CURRENCY, "query": request.GET.urlencode(),
    }  # fmt: skip


def _refused(request: HttpRequest, template: str, context: dict[str, Any], exc: Invalid) -> HttpResponse:
    return render(request, template, {**context, "errors": exc.fields or [exc.message]}, status=400)


@login_required
@require_GET
def project_page(request: HttpRequest, name: str) -> HttpResponse:
    choices = _choices(request, "workload")
    try:
        project, report = queries.project_cost(name, request.GET, actor=request.user, default_aggregate="workload")
        by_tier = queries.project_cost(name, {**request.GET.dict(), "aggregate": "tier"}, actor=request.user)[1]
    except NotFound:
        raise Http404("No such project.") from None
    except Invalid as exc:
        return _refused(request, "usage/project.html", {**choices, "project_name": name}, exc)
    return render(request, "usage/project.html", {
        **choices, "project": project, "project_name": project.name, "report": report,
        "rows": charts.table(report), "total": report.total_cost,
        "over_time": charts.cost_over_time(by_tier, settings.USAGE_CURRENCY),
        "by_tier": charts.cost_share(by_tier, settings.USAGE_CURRENCY),
        "by_workload": charts.cost_share(report, settings.USAGE_CURRENCY, kind="bar"),
        "request_use": charts.request_against_use(report, settings.USAGE_CURRENCY),
        "dimensions": queries.PROJECT_DIMENSIONS,
    })  # fmt: skip


@login_required
@require_GET
def report_page(request: HttpRequest) -> HttpResponse:
    admin = is_platform_admin(request.user)
    choices = _choices(request, "team" if admin else "project")
    try:
        report = queries.cost_report(request.GET, actor=request.user)
    except Invalid as exc:
        return _refused(request, "usage/report.html", {**choices, "admin": admin}, exc)
    return render(request, "usage/report.html", {
        **choices, "admin": admin, "report": report, "rows": charts.table(report), "total": report.total_cost,
        "over_time": charts.cost_over_time(report, settings.USAGE_CURRENCY),
        "share": charts.cost_share(report, settings.USAGE_CURRENCY),
        "request_use": charts.request_against_use(report, settings.USAGE_CURRENCY),
        "pools": charts.pool_rows(report),
        "dimensions": DIMENSIONS if admin else ("project", "tier", "cluster", "workload"),
    })  # fmt: skip


def csv_cell(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula (it starts with = + - @, a tab or a CR) as text: prefixed
    with ``'`` (OWASP's advice). Project owners write teams and cost centers; admins open the file. Numbers are
    written as they are, negative ones too: only text is neutralised, so "-5" typed as a team is text as well."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def csv_response(report: Report, filename: str) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response)
    writer.writerow(CSV_COLUMNS)
    body = queries.report_body(report)
    for step in body["steps"]:
        for a in step["allocations"]:
            props = a["properties"]
            amounts = [a[c] for c in CSV_COLUMNS[3 + len(DIMENSIONS) :]]
            row = [step["start"].isoformat(), step["end"].isoformat(), a["name"],
                   *(props.get(d, "") for d in DIMENSIONS), *amounts]  # fmt: skip
            writer.writerow([csv_cell(cell) for cell in row])
    return response


@login_required
@require_GET
def project_csv(request: HttpRequest, name: str) -> HttpResponse:
    try:
        project, report = queries.project_cost(name, request.GET, actor=request.user, default_aggregate="workload")
    except NotFound:
        raise Http404("No such project.") from None
    except Invalid as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain; charset=utf-8")
    return csv_response(report, f"cost-{project.name}.csv")


@login_required
@require_GET
def report_csv(request: HttpRequest) -> HttpResponse:
    try:
        report = queries.cost_report(request.GET, actor=request.user)
    except Invalid as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain; charset=utf-8")
    return csv_response(report, "cost-report.csv")


@login_required
@require_http_methods(["GET", "POST"])
def prices_page(request: HttpRequest) -> HttpResponse:
    admin = is_platform_admin(request.user)
    errors: list[Any] = []
    if request.method == "POST":
        tier = request.POST.get("tier", "")
        changes = {r: request.POST[r] for r in RESOURCES if request.POST.get(r, "").strip()}
        try:
            services.set_prices(tier, changes, actor=request.user)
        except ServiceError as exc:
            if exc.status == 403:
                raise
            errors = list(exc.fields) or [exc.message]
        else:
            messages.success(request, f"{tier} prices saved.")
            return redirect("usage:prices")
    sheet = prices.price_sheet()
    rows = [{"tier": t, "prices": [p for p in sheet if p.tier == t]} for t in TIERS]
    context = {"rows": rows, "admin": admin, "errors": errors, "currency": settings.USAGE_CURRENCY}
    return render(request, "usage/prices.html", context, status=400 if errors else 200)


@login_required
@require_GET
def cluster_capacity(request: HttpRequest, name: str) -> HttpResponse:
    try:
        _, points = queries.capacity(name, request.GET, actor=request.user)
    except NotFound:
        raise Http404("No such member cluster.") from None
    except Invalid as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain; charset=utf-8")
    tiers = [{"tier": t, "chart": charts.capacity_chart(points, t)} for t in TIERS]
    context = {"cluster": name, "tiers": tiers, "points": points, "forecasts": forecast.forecasts(points, TIERS)}
    return render(request, "usage/partials/capacity.html", context)
