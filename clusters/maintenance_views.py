"""The cluster page's maintenance card: cordon, drain and uncordon a member, cordon and uncordon one of its nodes
(htmx buttons with a confirmation), and the drain's progress (the card polls itself while a drain runs). Platform
admins only; every write is a ``clusters.maintenance`` service call."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from base.errors import Invalid
from base.htmx import is_partial, render_page
from base.permissions import require_platform_admin
from clusters import maintenance
from clusters.models import Cluster

PAGES = ("clusters/maintenance_page.html", "clusters/partials/maintenance.html")


def _context(cluster: Cluster, notice: str = "", error: str = "") -> dict[str, object]:
    return {"cluster": cluster, "progress": maintenance.drain_progress(cluster), "notice": notice, "error": error}


@login_required
@require_http_methods(["GET", "POST"])
def cluster_maintenance(request: HttpRequest, name: str) -> HttpResponse:
    require_platform_admin(request.user)
    cluster = get_object_or_404(Cluster, name=name)
    if request.method == "GET":
        return render_page(request, *PAGES, _context(cluster))
    action = request.POST.get("action", "")
    notice, error = "", ""
    try:
        if action == "cordon":
            cluster = maintenance.cordon_cluster(cluster.pk, actor=request.user)
            notice = f"Cordoned {cluster.name}: no new shards go there."
        elif action == "drain":
            text = request.POST.get("jobs_deadline_seconds", "").strip()
            seconds: object = int(text) if text.isdigit() else (text or maintenance.DEFAULT_JOBS_DEADLINE_SECONDS)
            cluster = maintenance.drain_cluster(cluster.pk, jobs_deadline_seconds=seconds, actor=request.user)
            notice = f"Draining {cluster.name}."
        elif action == "uncordon":
            cluster = maintenance.uncordon_cluster(cluster.pk, actor=request.user)
            notice = f"{cluster.name} is back in service."
        else:
            raise Http404(f"Unknown action {action!r}.")
    except Invalid as exc:
        error = "; ".join([exc.message, *(f.message for f in exc.fields)]).strip("; ")
    if not is_partial(request):
        (messages.error if error else messages.success)(request, error or notice)
        return redirect("clusters:detail", name=cluster.name)
    return render_page(request, *PAGES, _context(cluster, notice, error), status=400 if error else 200)


@login_required
@require_POST
def node_cordon(request: HttpRequest, name: str, node: str, verb: str) -> HttpResponse:
    require_platform_admin(request.user)
    cluster = get_object_or_404(Cluster, name=name)
    if verb not in ("cordon", "uncordon", "drain"):
        raise Http404(f"Unknown action {verb!r}.")
    if verb == "drain":
        messages.success(request, maintenance.drain_node(cluster.pk, node, actor=request.user).drained)
    else:
        maintenance.cordon_node(cluster.pk, node, unschedulable=verb == "cordon", actor=request.user)
        messages.success(request, f"{verb.capitalize()}ed node {node}.")
    if is_partial(request):  # the node table is read from the watch cache: the page shows it on its next load
        return HttpResponse(status=204, headers={"HX-Redirect": reverse("clusters:detail", args=[cluster.name])})
    return redirect("clusters:detail", name=cluster.name)
