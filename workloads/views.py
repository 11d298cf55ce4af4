from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from workloads.catalog import CATALOG
from workloads.services import visible_workloads


@login_required
def catalog(request: HttpRequest) -> HttpResponse:
    categories: dict[str, list] = {}
    for entry in CATALOG:
        categories.setdefault(entry.category, []).append(entry)
    return render(request, "workloads/catalog.html", {"categories": categories})


@login_required
def workload_list(request: HttpRequest) -> HttpResponse:
    rows, problems = visible_workloads(request.user)
    return render(request, "workloads/list.html", {"rows": rows, "problems": problems})
