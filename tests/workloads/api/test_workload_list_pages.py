"""The workload list API's pages (``workloads.paging.workload_page``): walking every page with the cursor
gives exactly the rows the workload page lists (``reads.list_workloads``: same filters, same order), across
kinds and projects, with no gap or repeat; a cursor that names nothing listed still starts after it."""

from __future__ import annotations

import pytest

from tests.support.api_host import client_for
from tests.support.factories import HOST, fill, workload_cr
from workloads.lookup import visible_projects
from workloads.reads import Filters, list_workloads

pytestmark = pytest.mark.django_db
KINDS = ("PinApp", "PinPod", "PinterestCronJob")


@pytest.fixture
def many(web, caches, other_project):
    """40 more workloads in ads over three kinds, tiers and clusters (some not admitted), 5 in ml."""
    for i in range(40):
        kind, tier = KINDS[i % 3], ("OnDemand", "Reserved")[i % 2]
        cr = workload_cr(f"w{i:02d}", kind=kind, tier=tier, clusters=(("member-a",), ("member-b",))[i % 2])
        if i % 5 == 0:
            cr = workload_cr(f"w{i:02d}", kind=kind, tier=tier, admitted=False, clusters=())
        fill(caches, HOST, cr)
    for i in range(5):
        fill(caches, HOST, workload_cr(f"m{i}", project="ml"))
    return caches


def walk(client, url: str) -> list[tuple[str, str, str]]:
    seen = []
    while url:
        body = client.get(url).json()
        seen += [(w["project"], w["kind"], w["name"]) for w in body["results"]]
        url = body["next"]
    return seen


@pytest.mark.parametrize(
    "query",
    ["", "kind=PinPod", "tier=Reserved", "status=waiting", "cluster=member-b", "tier=OnDemand&cluster=member-a"],
)
def test_pages_walk_the_same_rows_as_the_workload_page(many, owner, query):
    client = client_for(owner)
    filters = Filters.from_query(dict(p.split("=") for p in query.split("&") if p))
    cluster = dict(p.split("=") for p in query.split("&") if p).get("cluster", "")
    rows = list_workloads(visible_projects(owner), filters).rows
    expected = [(r.project, r.kind, r.name) for r in rows if not cluster or cluster in r.clusters]

    assert walk(client, f"/api/v1/workloads/?limit=4&{query}") == expected
    assert walk(client, f"/api/v1/workloads/?limit=500&{query}") == expected
    assert expected  # every case lists something


def test_another_tenants_workloads_are_never_in_a_page(many, owner, other_user):
    mine = walk(client_for(owner), "/api/v1/workloads/?limit=7")
    theirs = walk(client_for(other_user), "/api/v1/workloads/?limit=2")

    assert {p for p, _, _ in mine} == {"ads"} and len(mine) == 42
    assert theirs == [("ml", "PinApp", f"m{i}") for i in range(5)]


def test_a_cursor_that_names_nothing_listed_starts_after_its_place(many, owner):
    client = client_for(owner)

    after_kind = client.get("/api/v1/projects/ads/workloads/?cursor=ads/PinPod/w05&limit=2").json()
    past_project = client.get("/api/v1/workloads/?cursor=ads/ZZZ/z&limit=2").json()

    assert [(w["kind"], w["name"]) for w in after_kind["results"]] == [("PinPod", "w07"), ("PinPod", "w10")]
    assert past_project == {"next": None, "problems": [], "results": []}


def test_the_body_is_exactly_the_serializers_shape(many, owner):
    from workloads.api.serializers import WorkloadPageSerializer

    body = client_for(owner).get("/api/v1/workloads/?limit=20").json()

    assert body["next"] and len(body["results"]) == 20
    assert WorkloadPageSerializer(body).data == body
