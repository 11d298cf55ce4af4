"""Admin pages: cluster list with live health and capacity, detail, inline htmx attribute editing."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from base.errors import Invalid, add_to_form
from base.htmx import is_partial
from base.permissions import require_platform_admin
from clusters import insight, services
from clusters.forms import ClusterAttributesForm, PoolForm
from clusters.health import probe_cluster
from clusters.models import Cluster, ClusterPool, PoolKind
from clusters.tasks import probe_stale


def _admin_cluster(request: HttpRequest, name: str) -> Cluster:
    require_platform_admin(request.user)
    return get_object_or_404(Cluster, name=name)


@login_required
def cluster_list(request: HttpRequest) -> HttpResponse:
    require_platform_admin(request.user)
    probe_stale()
    overview = insight.registry_overview()
    template = "clusters/partials/cluster_table.html" if is_partial(request) else "clusters/list.html"
    return render(request, template, overview)


@login_required
def cluster_detail(request: HttpRequest, name: str) -> HttpResponse:
    cluster = _admin_cluster(request, name)
    return render(request, "clusters/detail.html", insight.cluster_detail(cluster))


@login_required
@require_http_methods(["GET", "POST"])
def cluster_attributes(request: HttpRequest, name: str) -> HttpResponse:
    cluster = _admin_cluster(request, name)
    editing = request.GET.get("edit") == "1"
    if request.method == "POST":
        form = ClusterAttributesForm(request.POST)
        if form.is_valid():
            try:
                changes = services.attributes_from_text(form.cleaned_data)
                cluster = services.update_cluster_attributes(cluster.pk, changes, actor=request.user)
                messages.success(request, f"Saved the attributes of {cluster.name}.")
                editing = False
            except Invalid as exc:
                add_to_form(form, exc)
                editing = True
        else:
            editing = True
    else:
        form = ClusterAttributesForm.for_cluster(cluster)
    context = {"cluster": cluster, "form": form, "editing": editing}
    status = 400 if request.method == "POST" and editing else 200
    if not is_partial(request):
        if request.method == "POST" and not editing:
            return redirect("clusters:detail", name=cluster.name)
        return render(request, "clusters/attributes_page.html", context, status=status)
    return render(request, "clusters/partials/attributes.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def cluster_pool(request: HttpRequest, name: str, kind: str) -> HttpResponse:
    cluster = _admin_cluster(request, name)
    if kind not in PoolKind.values:
        return HttpResponse(f"Unknown pool {kind!r}.", status=404)
    pool = ClusterPool.objects.filter(cluster=cluster, kind=kind).first() or ClusterPool(cluster=cluster, kind=kind)
    editing = request.GET.get("edit") == "1"
    status = 200
    if request.method == "POST":
        form = PoolForm(request.POST)
        if form.is_valid():
            try:
                pool = services.update_pool(cluster.pk, kind, services.PoolInput(**form.cleaned_data),
                                            actor=request.user)
                editing = False
            except Invalid as exc:
                add_to_form(form, exc)
                editing, status = True, 400
        else:
            editing, status = True, 400
    else:
        form = PoolForm(initial=services.pool_snapshot(pool))
    context = {
        "cluster": cluster, "pool": pool, "kind": kind, "pool_label": PoolKind(kind).label, "form": form,
        "editing": editing, "values": services.pool_snapshot(pool),
        "granted": insight.granted_display(cluster, kind),
    }
    if not is_partial(request) and request.method == "POST" and not editing:
        return redirect("clusters:detail", name=cluster.name)
    template = "clusters/partials/pool_row.html" if is_partial(request) else "clusters/pool_page.html"
    return render(request, template, context, status=status)


@login_required
@require_POST
def cluster_probe(request: HttpRequest, name: str) -> HttpResponse:
    cluster = _admin_cluster(request, name)
    try:
        version = probe_cluster(cluster)
        messages.success(request, f"{cluster.name} answered: Kubernetes {version}.")
    except ConnectionError as exc:
        messages.error(request, f"{cluster.name} is unreachable: {exc}")
    return redirect("clusters:detail", name=cluster.name)
