"""The workload list: every workload of the user's projects, filtered, polled."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse

from base.htmx import render_page
from pincompute.kinds import KINDS
from pincompute.tiers import Tier
from workloads.diagnosis import list_causes
from workloads.lookup import visible_projects
from workloads.reads import STATUSES, Filters, list_workloads

POLL_SECONDS = 5


@login_required
def workload_list(request: HttpRequest) -> HttpResponse:
    """Every workload of the user's projects (one row per host object), filtered by the query; the table
    is the htmx partial the filters and the poll swap."""
    filters = Filters.from_query(request.GET)
    projects = visible_projects(request.user)
    listing = list_workloads(projects, filters)
    query = urlencode({k: v for k, v in vars(filters).items() if v})
    context = {
        "listing": listing,
        "rows": listing.rows,
        "causes": list_causes(listing.rows, projects),  # each row's cause in one sentence, when not fine
        "problems": listing.problems,
        "filters": filters,
        "query": query,
        "projects": [p.name for p in projects],
        "kinds": [(kind, info.title) for kind, info in KINDS.items()],
        "tiers": [(t.value, t.value) for t in Tier],
        "statuses": [(value, label) for value, label, _ in STATUSES],
        "poll_seconds": POLL_SECONDS,
    }
    return render_page(request, "workloads/list.html", "workloads/partials/table.html", context)
