"""The largest request that fits now, through the portal: the quota page's table, ``GET .../quota/fit/`` and the
preview's "fits later" explanation, read from the host's MemberCluster objects and the members' nodes and pods (the
watch caches, filled), against the project's grants; every member reads it, another tenant's project is a 404."""

from __future__ import annotations

import pytest

from pincompute.kinds import MEMBER_CLUSTER
from tests.support.fakes import FilledCache
from tests.support.kinds import *  # noqa: F403
from tests.support.kinds import member
from workloads.examples import example
from workloads.preview import preview

pytestmark = pytest.mark.django_db
GI = 2**30


def node(name: str, cpu: str = "8", memory: str = "32Gi") -> dict:
    return {
        "metadata": {"name": name},
        "spec": {},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"}},
    }


def busy(name: str, on: str, cpu: str, memory: str = "1Gi") -> dict:
    container = {"name": "app", "resources": {"requests": {"cpu": cpu, "memory": memory}}}
    return {
        "metadata": {"name": name, "namespace": "other"},
        "spec": {"nodeName": on, "containers": [container]},
        "status": {"phase": "Running"},
    }


@pytest.fixture
def fragmented(caches, members):
    """member-a: four 8-cpu nodes with 5 cpu taken on each (12 cpu free, 3 per node); member-b: no node answers."""
    nodes = [node(f"a{i}") for i in range(4)]
    pods = [busy(f"p{i}", f"a{i}", "5") for i in range(4)]
    caches["member-a"] = FilledCache({"nodes": nodes, "pods": pods})
    caches["member-b"] = FilledCache({"nodes": [], "pods": []})
    members.put(MEMBER_CLUSTER.plural, member("member-a", "local-1a"))
    return caches


def test_the_api_says_the_largest_pod_per_tier_and_member_and_what_binds_it(granted, fragmented, client, developer):
    client.force_login(developer)

    body = client.get("/api/v1/projects/ads/quota/fit/").json()

    ondemand = next(t for t in body["tiers"] if t["tier"] == "ondemand")
    a, b = ondemand["clusters"]
    assert ondemand["grant_left"]["text"]["cpu"] == "8"
    assert a["cluster"] == "member-a" and a["fits"]
    assert a["largest"]["cpu_milli"] == 3000 and a["bounds"]["cpu"][0] == "at most 3 free on one node of member-a"
    assert a["largest"]["memory_bytes"] == 16 * GI  # the grant's 16Gi binds memory before the nodes' 31Gi
    assert a["pool_free"]["text"]["cpu"] == "64"
    assert a["joint"]["cpu_milli"] == 3000 and a["joint"]["memory_bytes"] <= 16 * GI
    assert b["cluster"] == "member-b" and not b["fits"]
    assert b["reasons"] == ["no node has room for even the platform's own containers now"]
    assert body["platform"]["cpu_milli"] > 0  # the runtime profile's containers, in every answer
    reserved = next(t for t in body["tiers"] if t["tier"] == "reserved")
    assert reserved["clusters"][0]["largest"]["cpu_milli"] == 3000
    preemptible = next(t for t in body["tiers"] if t["tier"] == "preemptible")
    assert preemptible["clusters"][0]["reasons"] == [
        "the platform's own containers need cpu 200m, more than the Preemptible grant has left",
        "the platform's own containers need memory 224Mi, more than the Preemptible grant has left",
    ]  # no Preemptible grant


def test_a_viewer_reads_it_and_another_tenant_gets_a_404(granted, fragmented, client, viewer, other_user):
    client.force_login(viewer)
    assert client.get("/api/v1/projects/ads/quota/fit/").status_code == 200
    client.force_login(other_user)
    answer = client.get("/api/v1/projects/ads/quota/fit/")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"


def test_the_quota_page_shows_the_largest_pod_beside_the_totals(granted, fragmented, client, developer):
    client.force_login(developer)

    html = client.get("/projects/ads/quota/", HTTP_HX_REQUEST="true").content.decode()

    assert 'data-fit-tier="ondemand"' in html and 'data-fit-cluster="member-a" data-fit-cpu="3"' in html
    assert "at most 3 free on one node of member-a" in html
    assert "nothing fits: no node has room for even the platform&#x27;s own containers now" in html


def test_the_preview_says_a_pod_over_one_nodes_room_fits_later(granted, fragmented, developer):
    document = example("PinPod", project="ads")
    document["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "6", "memory": "1Gi"}}

    shown = preview(granted, document, actor=developer)

    assert shown.quota.verdict == "fits" and [s.cluster for s in shown.placement.shards] == ["member-a"]
    [later] = shown.room.later
    assert later == (
        "64 cpu free in OnDemand on member-a but at most 3 on one node: one pod (cpu 6150m, memory 1216Mi) waits "
        "until a node has room for all of it at once (fits later)"
    )  # the platform's containers (150m, 192Mi) counted
    assert shown.room.largest[0].startswith("3 cpu, 16Gi memory, 0 gpu on member-a")


def test_a_pod_within_one_nodes_room_has_no_later_note(granted, fragmented, developer):
    document = example("PinPod", project="ads")
    document["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1", "memory": "1Gi"}}

    assert preview(granted, document, actor=developer).room.later == []
