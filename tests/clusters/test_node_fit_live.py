"""Cluster edits checked against the member's real nodes (the portal's node cache of the local control plane):
pools cannot outgrow what the nodes hold, a zone must be the nodes' zone, and every problem is said at once, on
the page and through the API alike. member-a's 20 kwok nodes hold 1440 CPU, 5760Gi and 40 GPUs in zone local-1a."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command

from base.errors import Invalid
from base.models import AuditEvent
from clusters import runtime, services
from clusters.models import Cluster, ClusterPool
from tests.support.factories import make_pool, make_quota
from tests.support.nodes import node_zones

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def member(local_control_plane) -> Cluster:
    zones = [f"--zone={c.name}={c.zone}" for c in local_control_plane.clusters]
    call_command("import_clusters", "--kubeconfig", str(local_control_plane.kubeconfig_path), *zones)
    cluster = Cluster.objects.get(name="member-a")
    assert node_zones("member-a") == {"local-1a"}  # its node cache has synced
    yield cluster
    runtime.shutdown()


def by_field(error: Invalid) -> dict[str, str]:
    return {f.path: f.message for f in error.fields}


def test_a_pool_past_what_the_nodes_hold_is_refused_per_resource_with_the_numbers(member, admin_user):
    make_pool(member, "ondemand", 64)

    with pytest.raises(Invalid) as refused:
        services.update_pool(
            member.pk, "reserved", services.PoolInput(cpu="5000", memory="100Gi", gpu="48"), actor=admin_user
        )

    errors = by_field(refused.value)
    assert set(errors) == {"cpu", "gpu"}  # every resource at once; the memory fits
    assert errors["cpu"] == (
        "member-a's 20 schedulable nodes hold 1440 cpu; its pools would take 5064 (OnDemand pool 64, Reserved pool "
        "5000). The Reserved pool can hold at most 1376 beside the others."
    )
    assert "hold 40 gpu; its pools would take 48" in errors["gpu"]
    assert not ClusterPool.objects.filter(cluster=member, kind="reserved").exists()
    assert not AuditEvent.objects.filter(action="cluster.pool.update").exists()


def test_a_pool_that_fits_the_nodes_is_saved_and_one_already_past_them_may_shrink(member, admin_user):
    make_pool(member, "reserved", 2000)  # written before the check existed

    services.update_pool(member.pk, "reserved", services.PoolInput(cpu="1800", memory="0", gpu="0"), actor=admin_user)
    services.update_pool(member.pk, "burst", services.PoolInput(cpu="0", memory="5760Gi", gpu="40"), actor=admin_user)

    assert ClusterPool.objects.get(cluster=member, kind="reserved").cpu_milli == 1_800_000
    assert ClusterPool.objects.get(cluster=member, kind="burst").gpu == 40


def test_a_shrink_below_the_grants_and_growth_past_the_nodes_are_refused_together(member, admin_user):
    make_pool(member, "reserved", 100, 100)
    make_quota("reserved", 90, mem_gib=10)

    with pytest.raises(Invalid) as refused:
        services.update_pool(
            member.pk, "reserved", services.PoolInput(cpu="80", memory="9000Gi", gpu="0"), actor=admin_user
        )

    errors = by_field(refused.value)
    assert "10 below the 90 already granted" in errors["cpu"]
    assert "hold 5760Gi memory" in errors["memory"]
    assert ClusterPool.objects.get(cluster=member, kind="reserved").cpu_milli == 100_000


def test_a_zone_none_of_the_nodes_is_in_is_refused_naming_theirs(member, admin_user):
    with pytest.raises(Invalid) as refused:
        services.update_cluster_attributes(member.pk, {"zone": "local-1q"}, actor=admin_user)

    assert by_field(refused.value) == {
        "zone": "member-a cannot move to zone local-1q: no node of this member is in zone local-1q: its nodes' "
        "topology.kubernetes.io/zone labels say local-1a (20 nodes). Use local-1a, or relabel the nodes first."
    }
    assert Cluster.objects.get(pk=member.pk).zone == "local-1a"


def test_the_attribute_form_shows_every_problem_of_one_submit(member, admin_client_):
    form = {
        "region": "local-1",
        "zone": "local-1q",
        "hardware_families": "GPU!",
        "labels": "novalue\nBad Key=x",
        "taints": "dedicated=ml:Sometimes",
        "schedulable": "on",
    }

    response = admin_client_.post("/clusters/member-a/attributes/", form, HTTP_HX_REQUEST="true")

    page = re.sub(r"\s+", " ", response.content.decode())
    assert response.status_code == 400
    assert "no node of this member is in zone local-1q" in page
    assert "GPU!: use lowercase letters" in page
    assert "&#x27;novalue&#x27; is not key=value. &#x27;Bad Key&#x27; is not a valid label key." in page
    assert "&#x27;dedicated=ml:Sometimes&#x27;: write key=value:Effect" in page
    assert not AuditEvent.objects.filter(action="cluster.update").exists()


def test_the_pool_form_shows_every_resource_past_the_nodes(member, admin_client_):
    response = admin_client_.post(
        "/clusters/member-a/pools/reserved/", {"cpu": "5000", "memory": "9000Gi", "gpu": "1"}, HTTP_HX_REQUEST="true"
    )

    page = response.content.decode()
    assert response.status_code == 400
    assert "hold 1440 cpu" in page and "hold 5760Gi memory" in page and "gpu;" not in page


def test_the_api_refuses_the_same_edits_with_every_field(member, api_client, admin_user):
    api_client.force_authenticate(admin_user)

    pool = api_client.put(
        "/api/v1/clusters/member-a/pools/reserved/", {"cpu": "5000", "memory": "9000Gi", "gpu": "0"}, format="json"
    )
    zone = api_client.patch(
        "/api/v1/clusters/member-a/", {"zone": "local-1q", "labels": {"Bad Key": "x"}}, format="json"
    )

    assert pool.status_code == 400
    assert {f["path"] for f in pool.json()["error"]["fields"]} == {"cpu", "memory"}
    assert zone.status_code == 400
    assert {f["path"] for f in zone.json()["error"]["fields"]} == {"zone", "labels"}
