from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from projects.models import Membership, Project, Tier
from projects.services import project_quota_rows, quota_rows_for


@login_required
def project_list(request: HttpRequest) -> HttpResponse:
    projects = list(Project.objects.visible_to(request.user))
    roles = dict(Membership.objects.filter(user=request.user).values_list("project_id", "role"))
    quotas = quota_rows_for(projects)
    rows = [{"project": p, "role": roles.get(p.pk, "admin"), "quota": quotas[p.pk]} for p in projects]
    return render(request, "projects/list.html", {"rows": rows, "tiers": list(Tier)})


@login_required
def project_detail(request: HttpRequest, name: str) -> HttpResponse:
    # 404, not 403, for projects the user cannot see: existence is not disclosed to other tenants.
    project = get_object_or_404(Project.objects.visible_to(request.user), name=name)
    members = project.memberships.select_related("user").order_by("role", "user__username")
    return render(
        request,
        "projects/detail.html",
        {
            "project": project,
            "members": members,
            "quota": project_quota_rows(project),
        },
    )
