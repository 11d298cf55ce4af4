"""The one htmx helper: partial for an htmx swap, full page otherwise; a form POST answered by its errors."""

from __future__ import annotations

import pytest
from django import forms
from django.test import RequestFactory
from django_htmx.middleware import HtmxDetails

from base.htmx import is_partial, render_form, render_page
from clusters.models import Cluster, ClusterPool
from tests.support.factories import make_cluster, make_pool, make_quota

FULL, PARTIAL = "clusters/pool_page.html", "clusters/partials/pool_row.html"


def request(method: str = "get", **headers: str):
    req = getattr(RequestFactory(), method)("/x/", **{f"HTTP_{k.upper()}": v for k, v in headers.items()})
    req.htmx = HtmxDetails(req)
    return req


class NameForm(forms.Form):
    name = forms.CharField()


def context(form: forms.Form) -> dict:
    cluster = Cluster(name="c1")  # unsaved: the templates only need its name
    return {
        "cluster": cluster,
        "kind": "burst",
        "pool_label": "Burst",
        "form": form,
        "editing": bool(form.errors),
        "values": {"cpu": "1", "memory": "0", "gpu": "0"},
    }


@pytest.mark.parametrize(
    ("headers", "partial"),
    [
        ({}, False),
        ({"hx_request": "true"}, True),
        ({"hx_request": "true", "hx_boosted": "true"}, False),
        ({"hx_request": "true", "hx_history_restore_request": "true"}, False),
    ],
)
def test_only_an_htmx_swap_is_partial(headers, partial):
    assert is_partial(request(**headers)) is partial


def test_render_page_picks_the_template_and_keeps_the_status():
    full = render_page(request(), FULL, PARTIAL, context(NameForm()))
    part = render_page(request(hx_request="true"), FULL, PARTIAL, context(NameForm()), status=202)

    assert b"<html" in full.content and full.status_code == 200
    assert b"<html" not in part.content and part.status_code == 202


@pytest.mark.parametrize("htmx", [False, True])
def test_a_form_with_errors_comes_back_with_400(htmx):
    form = NameForm({"name": ""})
    headers = {"hx_request": "true"} if htmx else {}

    response = render_form(request("post", **headers), FULL, PARTIAL, context(form), form=form, success_url="/ok/")

    assert response.status_code == 400 and (b"<html" in response.content) is not htmx


def test_a_saved_form_redirects_a_plain_post_and_swaps_for_htmx():
    form = NameForm({"name": "x"})

    plain = render_form(request("post"), FULL, PARTIAL, context(form), form=form, success_url="/ok/")
    htmx = render_form(request("post", hx_request="true"), FULL, PARTIAL, context(form), form=form, success_url="/ok/")

    assert plain.status_code == 302 and plain["Location"] == "/ok/"
    assert htmx.status_code == 200 and b"<tr" in htmx.content and b"<html" not in htmx.content


@pytest.mark.django_db
def test_pool_page_without_htmx_redirects_after_saving_and_shows_refusals_in_the_page(admin_client_):
    cluster = make_cluster()
    make_pool(cluster, "reserved", 50)
    make_quota("reserved", 48)
    url = f"/clusters/{cluster.name}/pools/reserved/"

    refused = admin_client_.post(url, {"cpu": "40", "memory": "0", "gpu": "0"})
    saved = admin_client_.post(url, {"cpu": "60", "memory": "0", "gpu": "0"})

    assert refused.status_code == 400 and b"<html" in refused.content and b"8 below the 48" in refused.content
    assert saved.status_code == 302 and saved["Location"] == f"/clusters/{cluster.name}/"
    assert ClusterPool.objects.get(cluster=cluster, kind="reserved").cpu_milli == 60_000


@pytest.mark.django_db
def test_unknown_pool_is_a_404(admin_client_):
    cluster = make_cluster()

    assert admin_client_.get(f"/clusters/{cluster.name}/pools/gold/").status_code == 404
