"""The project list and the tutorial (from an empty project to a first workload and a first shell)."""

from __future__ import annotations

from typing import Any

import yaml
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from clusters import runtime
from clusters.models import Cluster
from pincompute import API_VERSION
from pincompute.tenancy import label_value
from pincompute.tiers import Tier as CoreTier
from projects.access import roles_of
from projects.grants import grants_of
from projects.headroom import quota_rows_for
from projects.models import ClusterProvisioning, Project, ProjectRole, ProvisioningState, Tier
from projects.views.common import shown
from projects.views.sections import provisioning

FIRST_WORKLOAD = "hello"


@login_required
@require_GET
def project_list(request: HttpRequest) -> HttpResponse:
    projects = list(Project.objects.visible_to(request.user))
    roles = roles_of(request.user, projects)
    quotas = quota_rows_for(projects)
    ready = dict.fromkeys((p.pk for p in projects), 0)
    for project_id in ClusterProvisioning.objects.filter(
        project__in=projects, state=ProvisioningState.READY
    ).values_list("project_id", flat=True):
        ready[project_id] += 1
    clusters = Cluster.objects.count()
    rows = [
        {"project": p, "role": roles.get(p.pk, ""), "quota": quotas[p.pk], "ready": ready[p.pk], "clusters": clusters}
        for p in projects
    ]
    return render(request, "projects/list.html", {"rows": rows, "tiers": list(Tier)})


def first_workload(project: Project) -> dict[str, Any]:
    """A small PinPod in the OnDemand tier: one container, requests well inside a starter grant; its team as a label
    value, as the submission completes it (a team named "Ads Ranking" is ``Ads-Ranking`` there)."""
    return {
        "apiVersion": API_VERSION,
        "kind": "PinPod",
        "metadata": {"name": FIRST_WORKLOAD, "namespace": project.namespace},
        "spec": {
            "project": project.name,
            **({"team": label_value(project.team)} if label_value(project.team) else {}),  # as submission spells it
            "costCenter": project.cost_center,
            "tier": CoreTier.ONDEMAND.value,
            "containers": [
                {
                    "name": "app",
                    "image": "busybox:1.36",
                    "command": ["sh", "-c", "echo hello from $HOSTNAME; sleep 3600"],
                    "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}},
                }
            ],
        },
    }


def _pods(project: Project) -> list[dict[str, str]]:
    """The project's pods in the member clusters' watch caches (the first workload's first)."""
    found = []
    for cluster, cache in sorted(runtime.member_caches().items()):
        for pod in cache.list("pods", namespace=project.namespace):
            name = str((pod.get("metadata") or {}).get("name", ""))
            phase = str((pod.get("status") or {}).get("phase", ""))
            found.append({"cluster": cluster, "name": name, "phase": phase})
    return sorted(found, key=lambda p: (not p["name"].startswith(FIRST_WORKLOAD), p["cluster"], p["name"]))


@login_required
@require_GET
def tutorial(request: HttpRequest) -> HttpResponse:
    """Step by step with the user's own project (``?project=``, else the first they may deploy to)."""
    visible = list(Project.objects.visible_to(request.user).active())
    deployable = set(
        Project.objects.for_role(request.user, (ProjectRole.OWNER, ProjectRole.DEVELOPER)).values_list("pk", flat=True)
    )
    wanted = request.GET.get("project")
    project = (
        next((p for p in visible if p.name == wanted), None)
        or next((p for p in visible if p.pk in deployable), None)
        or next(iter(visible), None)
    )
    context: dict[str, Any] = {
        "projects": visible,
        "project": project,
        "deployable": deployable,
        "portal_url": request.build_absolute_uri("/").rstrip("/"),
    }
    if project is not None:
        manifest = first_workload(project)
        context.update(
            {
                "can_deploy": project.pk in deployable,
                "ondemand": shown(grants_of(project)[CoreTier.ONDEMAND]),
                "manifest": yaml.safe_dump(manifest, sort_keys=False),
                "workload": FIRST_WORKLOAD,
                "pods": _pods(project)[:5],
                **provisioning(project),
            }
        )
    return render(request, "projects/tutorial.html", context)
