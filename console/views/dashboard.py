from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from base.models import AuditEvent
from base.permissions import is_platform_admin
from clusters.health import health_of
from clusters.models import Cluster
from pincompute.tiers import Tier
from projects.headroom import quota_rows_for
from projects.models import Project


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    projects = list(Project.objects.visible_to(request.user)[:20])
    quotas = quota_rows_for(projects)
    quota_chart = {
        "type": "bar",
        "data": {
            "labels": [p.name for p in projects],
            "datasets": [
                {
                    "label": tier.value,
                    "stack": "q",
                    "tier": tier.label,
                    "alpha": 1,  # colour: app.css --tier-*
                    "data": [round(_tier(quotas[p.pk], tier.label)["cpu_milli"] / 1000, 1) for p in projects],
                }
                for tier in Tier
            ],
        },
        "options": {
            "unit": "cores",
            "stacked": True,
            "plugins": {"title": {"display": True, "text": "Granted CPU quota per tier"}},
        },
    }
    recent = AuditEvent.objects.filter(actor=request.user)[:10]
    if is_platform_admin(request.user):
        recent = AuditEvent.objects.all()[:10]
    return render(
        request,
        "console/dashboard.html",
        {
            "projects": projects,
            "quota_chart": quota_chart,
            "clusters": [{"cluster": c, "health": health_of(c)} for c in Cluster.objects.members()],
            "recent": recent,
        },
    )


def _tier(rows: list[dict], tier: str) -> dict:
    return next(row for row in rows if row["tier"] == tier)
