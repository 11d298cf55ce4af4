"""Admin pages: cluster list with health and capacity, detail, inline htmx attribute and pool editing.

GETs only read (the registry, the watch caches, this process's breakers); writes are POSTs that call
``clusters.services`` or record an explicit probe.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from base.errors import Invalid, add_to_form
from base.htmx import is_partial, render_form, render_page
from base.permissions import require_platform_admin
from clusters import attributes, insight, maintenance, services
from clusters.forms import ClusterAttributesForm, PoolForm
from clusters.health import probe_cluster
from clusters.models import Cluster, ClusterPool, PoolKind


def _admin_cluster(request: HttpRequest, name: str) -> Cluster:
    require_platform_admin(request.user)
    return get_object_or_404(Cluster, name=name)


@login_required
def cluster_list(request: HttpRequest) -> HttpResponse:
    require_platform_admin(request.user)
    return render_page(
        request, "clusters/list.html", "clusters/partials/cluster_table.html", insight.registry_overview()
    )


@login_required
def cluster_detail(request: HttpRequest, name: str) -> HttpResponse:
    cluster = _admin_cluster(request, name)
    context = {**insight.cluster_detail(cluster), "progress": maintenance.drain_progress(cluster)}
    return render(request, "clusters/detail.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def cluster_attributes(request: HttpRequest, name: str) -> HttpResponse:
    cluster = _admin_cluster(request, name)
    pages = ("clusters/attributes_page.html", "clusters/partials/attributes.html")
    if request.method == "GET":
        context = {
            "cluster": cluster,
            "form": ClusterAttributesForm.for_cluster(cluster),
            "editing": request.GET.get("edit") == "1",
        }
        return render_page(request, *pages, context)
    form = ClusterAttributesForm(request.POST)
    notice = ""
    if form.is_valid():
        try:
            changes, unparsed = attributes.attributes_from_text(form.cleaned_data)
            cluster = services.update_cluster_attributes(cluster.pk, changes, actor=request.user, parse_errors=unparsed)
            notice = f"Saved the attributes of {cluster.name}."
        except Invalid as exc:
            add_to_form(form, exc)
    if notice and not is_partial(request):  # post/redirect/get: said on the page it lands on
        messages.success(request, notice)
    context = {"cluster": cluster, "form": form, "editing": bool(form.errors), "notice": notice}
    return render_form(request, *pages, context, form=form, success_url=_detail_url(cluster))


@login_required
@require_http_methods(["GET", "POST"])
def cluster_pool(request: HttpRequest, name: str, kind: str) -> HttpResponse:
    cluster = _admin_cluster(request, name)
    if kind not in PoolKind.values:
        raise Http404(f"Unknown pool {kind!r}.")
    pool = ClusterPool.objects.filter(cluster=cluster, kind=kind).first() or ClusterPool(cluster=cluster, kind=kind)
    pages = ("clusters/pool_page.html", "clusters/partials/pool_row.html")
    if request.method == "GET":
        form = PoolForm(initial=attributes.pool_snapshot(pool))
        return render_page(request, *pages, _pool_context(cluster, pool, form, request.GET.get("edit") == "1"))
    form = PoolForm(request.POST)
    if form.is_valid():
        try:
            pool = services.update_pool(cluster.pk, kind, attributes.PoolInput(**form.cleaned_data), actor=request.user)
        except Invalid as exc:
            add_to_form(form, exc)
    context = _pool_context(cluster, pool, form, bool(form.errors))
    return render_form(request, *pages, context, form=form, success_url=_detail_url(cluster))


def _pool_context(cluster: Cluster, pool: ClusterPool, form: PoolForm, editing: bool) -> dict:
    return {
        "cluster": cluster,
        "pool": pool,
        "kind": pool.kind,
        "pool_label": PoolKind(pool.kind).label,
        "form": form,
        "editing": editing,
        "values": attributes.pool_snapshot(pool),
        "granted": insight.granted_display(cluster, pool.kind),
    }


def _detail_url(cluster: Cluster) -> str:
    return reverse("clusters:detail", args=[cluster.name])


@login_required
@require_POST
def cluster_probe(request: HttpRequest, name: str) -> HttpResponse:
    cluster = _admin_cluster(request, name)
    try:
        version = probe_cluster(cluster, actor=request.user)
        messages.success(request, f"{cluster.name} answered: Kubernetes {version}.")
    except ConnectionError as exc:
        messages.error(request, f"{cluster.name} is unreachable: {exc}")
    return redirect("clusters:detail", name=cluster.name)
