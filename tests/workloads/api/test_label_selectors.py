"""``?labelSelector=`` on the workload and pod lists, read as Kubernetes reads a label selector (equality and set
requirements, ``!=``/``notin`` also matching an object without the key); an invalid selector is a 400 naming
``labelSelector``, after the project is authorized (another tenant's project stays a 404)."""

from __future__ import annotations

from typing import Any

import pytest

from base.errors import Invalid
from tests.support.api_host import client_for
from tests.support.factories import fill, workload_cr
from tests.support.fake_host import pod
from tests.support.workloads_api import error, paths
from workloads.selectors import parse_selector

pytestmark = pytest.mark.django_db

LABELS = {"app": "shop", "tier": "front", "example.com/team": "ads"}


@pytest.mark.parametrize(
    ("selector", "matches"),
    [
        ("", True),
        ("app", True),
        ("!app", False),
        ("!canary", True),
        ("app=shop", True),
        ("app==shop", True),
        ("app=cart", False),
        ("app!=cart", True),
        ("canary!=yes", True),  # no such key: != holds, as in Kubernetes
        ("tier in (front,back)", True),
        ("tier in (back)", False),
        ("tier notin (back, batch)", True),
        ("canary notin (yes)", True),
        ("app=shop,tier=back", False),
        (" app = shop , example.com/team in ( ads ) ", True),
    ],
)
def test_a_selector_matches_as_kubernetes_reads_it(selector, matches):
    assert parse_selector(selector).matches(LABELS) is matches


@pytest.mark.parametrize(
    ("selector", "why"),
    [
        ("app=", "ends too early"),
        ("=shop", "a key was expected"),
        ("app=shop,", "ends with a comma"),
        ("app shop", "unknown operator 'shop'"),
        ("app in shop", "in parentheses"),
        ("app in ()", "must not be empty"),
        ("app in (a b)", "a comma or ')'"),
        ("-app=x", "the key '-app'"),
        ("Bad_Prefix/app=x", "invalid prefix"),
        ("app=" + "x" * 64, "at most 63"),
        ("app=shop tier=front", "a comma was expected"),
    ],
)
def test_an_invalid_selector_names_the_field_and_says_why(selector, why):
    with pytest.raises(Invalid) as refused:
        parse_selector(selector)

    assert [f.path for f in refused.value.fields] == ["labelSelector"]
    assert why in refused.value.fields[0].message, refused.value.fields[0].message


def labelled(name: str, **labels: str) -> dict[str, Any]:
    cr = workload_cr(name)
    cr["metadata"]["labels"] = labels
    return cr


def test_the_workload_lists_keep_only_what_the_selector_matches(fake_host, caches, owner):
    for cr in (labelled("shop", app="shop", tier="front"), labelled("cart", app="cart"), labelled("bare")):
        fake_host.put(cr)
    client = client_for(owner)

    def names(path: str, selector: str, **query: Any) -> list[str]:
        response = client.get(path, {"labelSelector": selector, **query})
        assert response.status_code == 200, response.json()
        return [w["name"] for w in response.json()["results"]]

    for path in ("/api/v1/workloads/", "/api/v1/projects/ads/workloads/"):
        assert names(path, "app") == ["cart", "shop"]
        assert names(path, "app in (shop,cart),tier!=front") == ["cart"]
        assert names(path, "!app") == ["bare"]
        assert names(path, "") == ["bare", "cart", "shop"]
    assert names("/api/v1/projects/ads/workloads/", "app", limit=1) == ["cart"]  # paged after the selection
    assert set(paths(client.get("/api/v1/workloads/", {"labelSelector": "app in ()"}))) == {"labelSelector"}


def test_the_pod_list_keeps_only_what_the_selector_matches(web, caches, viewer):
    canary = pod("web-canary-1", "web")
    canary["metadata"]["labels"]["track"] = "canary"
    fill(caches, "member-b", pods=[canary, pod("web-b-1", "web")])
    client = client_for(viewer)

    body = client.get("/api/v1/projects/ads/pods/", {"labelSelector": "track=canary"}).json()
    stable = client.get("/api/v1/projects/ads/pods/", {"labelSelector": "track notin (canary)"}).json()

    assert [p["name"] for p in body["results"]] == ["web-canary-1"]
    assert [p["name"] for p in stable["results"]] == ["web-local-1a-abc", "web-b-1"]
    assert set(paths(client.get("/api/v1/projects/ads/pods/", {"labelSelector": "track=="}))) == {"labelSelector"}


def test_another_tenants_project_is_a_404_before_the_selector_is_read(web, developer):
    error(client_for(developer).get("/api/v1/projects/ml/pods/", {"labelSelector": "in in in"}), 404)
    error(client_for(developer).get("/api/v1/projects/ml/workloads/", {"labelSelector": "in in in"}), 404)
