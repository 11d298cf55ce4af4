from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from base.htmx import render_page
from base.models import AuditEvent
from base.permissions import require_platform_admin

FILTERS = ("actor", "action", "project", "cluster", "target")


@login_required
def audit_list(request: HttpRequest) -> HttpResponse:
    require_platform_admin(request.user)
    values = {name: request.GET.get(name, "").strip()[:200] for name in FILTERS}
    events = AuditEvent.objects.filtered(**values)
    page = Paginator(events, 50).get_page(request.GET.get("page"))
    context = {
        "page_obj": page,
        "filters": values,
        "actions": AuditEvent.objects.order_by().values_list("action", flat=True).distinct()[:100],
    }
    return render_page(request, "audit/list.html", "audit/partials/rows.html", context)


@login_required
def audit_detail(request: HttpRequest, pk: int) -> HttpResponse:
    require_platform_admin(request.user)
    event = get_object_or_404(AuditEvent, pk=pk)
    return render(request, "audit/detail.html", {"event": event})
