"""Granted quota never exceeds what the region's schedulable pools hold, whatever order a platform admin edits
the registry in: taking a member out of scheduling (or out of the federation's members) lowers the region's
capacity as a pool shrink does, and is refused the same way when the grants would no longer fit; adding
capacity back (re-opening a member, growing a pool) is always allowed. The hostile tester's sequence (close
member-b, shrink its pools, re-open it) can no longer leave the region over-granted."""

from __future__ import annotations

import pytest

from base.errors import Invalid
from base.models import AuditEvent
from clusters import services
from clusters.models import Cluster, ClusterPool
from pincompute.tiers import Tier
from projects.grants import headroom
from tests.support.factories import make_cluster, make_pool, make_quota

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
ATTRIBUTES = {"region": "local-1", "zone": "local-1b", "hardware_families": "general, gpu", "labels": "", "taints": ""}


@pytest.fixture
def region() -> tuple[Cluster, Cluster]:
    """Two members whose Reserved pools hold 648 cores, 2592Gi and 18 GPUs each (the dev stack's)."""
    a, b = make_cluster("member-a"), make_cluster("member-b", zone="local-1b", hardware_families=["general", "gpu"])
    for member in (a, b):
        make_pool(member, "reserved", 648, 2592, 18)
        make_pool(member, "ondemand", 100, 400)
    return a, b


def reserved_cpu_left() -> int:
    return headroom(Tier.RESERVED).cpu_milli


def fields(error: Invalid) -> dict[str, str]:
    return {f.path: f.message for f in error.fields}


def test_the_probes_sequence_is_refused_at_the_first_step_that_would_over_grant(region, admin_client_):
    _, b = region
    make_quota("reserved", 1000, project="xss-lab", mem_gib=1)  # needs the Reserved pools of both members
    shrink = {"cpu": "0", "memory": "2592Gi", "gpu": "18"}

    refused_shrink = admin_client_.post(f"/clusters/{b.name}/pools/reserved/", shrink, **HX)
    closed = admin_client_.post(f"/clusters/{b.name}/attributes/", ATTRIBUTES, **HX)  # schedulable unticked
    shrunk_while_closed = admin_client_.post(f"/clusters/{b.name}/pools/reserved/", shrink, **HX)
    reopened = admin_client_.post(f"/clusters/{b.name}/attributes/", {**ATTRIBUTES, "schedulable": "on"}, **HX)

    assert refused_shrink.status_code == 400
    assert closed.status_code == 400
    page = closed.content.decode()
    assert "member-b cannot stop being schedulable" in page
    assert "352 below the 1000 cpu already granted in Reserved" in page
    assert shrunk_while_closed.status_code == 400  # still schedulable: the shrink guard holds
    assert reopened.status_code == 200
    b.refresh_from_db()
    assert b.schedulable
    assert ClusterPool.objects.get(cluster=b, kind="reserved").cpu_milli == 648_000
    assert reserved_cpu_left() == 296_000  # never negative
    assert not AuditEvent.objects.filter(action__in=["cluster.update", "cluster.pool.update"]).exists()


def test_closing_a_member_the_grants_need_is_refused_naming_every_tier_short(region, admin_user):
    _, b = region
    make_quota("reserved", 1000, project="ads", mem_gib=1)
    make_quota("preemptible", 1400, project="ml")

    with pytest.raises(Invalid) as refused:
        services.update_cluster_attributes(b.pk, {"schedulable": False}, actor=admin_user)

    assert fields(refused.value) == {
        "schedulable": "member-b cannot stop being schedulable: without its pools, the Reserved pools of the region "
        "would hold 648 cpu, 352 below the 1000 cpu already granted in Reserved; every pool of the region would "
        "hold 748 cpu, 652 below the 1400 cpu already granted in Preemptible. Lower those grants, or grow other "
        "members' pools, first."
    }
    b.refresh_from_db()
    assert b.schedulable and not AuditEvent.objects.filter(action="cluster.update").exists()


def test_the_api_refuses_closing_a_member_the_grants_need(region, api_client, admin_user):
    _, b = region
    make_quota("reserved", 1000, project="ads")
    api_client.force_authenticate(admin_user)

    response = api_client.patch(f"/api/v1/clusters/{b.name}/", {"schedulable": False}, format="json")

    assert response.status_code == 400
    [error] = response.json()["error"]["fields"]
    assert error["path"] == "schedulable" and "352 below the 1000 cpu already granted in Reserved" in error["message"]
    assert Cluster.objects.get(pk=b.pk).schedulable


def test_a_member_the_grants_do_not_need_may_be_drained_shrunk_and_reopened(region, admin_user):
    _, b = region
    make_quota("reserved", 600, project="ads")

    services.update_cluster_attributes(b.pk, {"schedulable": False}, actor=admin_user)
    services.update_pool(b.pk, "reserved", services.PoolInput(cpu="0", memory="0", gpu="0"), actor=admin_user)
    services.update_cluster_attributes(b.pk, {"schedulable": True}, actor=admin_user)

    assert Cluster.objects.get(pk=b.pk).schedulable
    assert reserved_cpu_left() == 48_000


def test_reopening_a_member_is_allowed_even_when_the_region_is_already_over_granted(region, admin_user):
    """Re-opening only adds capacity: refusing it would keep the region further over-granted."""
    _, b = region
    make_quota("reserved", 600, project="ads")
    services.update_cluster_attributes(b.pk, {"schedulable": False}, actor=admin_user)
    services.update_pool(b.pk, "reserved", services.PoolInput(cpu="10", memory="0", gpu="0"), actor=admin_user)
    make_quota("reserved", 700, project="ads")  # over-granted by a path that skipped the guard (written directly)

    services.update_cluster_attributes(b.pk, {"schedulable": True}, actor=admin_user)

    assert Cluster.objects.get(pk=b.pk).schedulable and reserved_cpu_left() == -42_000


def test_moving_a_member_to_another_region_keeps_its_pools_counted(region, admin_user):
    """Grants count every schedulable member, whatever its region label (federation admission places on any):
    a move removes no capacity, so it is allowed and leaves the headroom as it was."""
    _, b = region
    make_quota("reserved", 1000, project="ads")

    services.update_cluster_attributes(b.pk, {"region": "local-2", "zone": "local-2a"}, actor=admin_user)

    assert Cluster.objects.get(pk=b.pk).region == "local-2"
    assert reserved_cpu_left() == 296_000


def test_a_member_re_registered_as_a_host_is_refused_while_the_grants_need_its_pools(region, admin_user):
    _, b = region
    make_quota("reserved", 1000, project="ads")
    fields_of_b = {
        "name": b.name,
        "region": b.region,
        "zone": b.zone,
        "api_server": b.api_server,
        "kubeconfig_path": b.kubeconfig_path,
        "kube_context": b.kube_context,
    }

    with pytest.raises(Invalid) as refused:
        services.register_cluster(role="host", actor=admin_user, **fields_of_b)

    assert "member-b cannot stop being a member" in fields(refused.value)["role"]
    assert Cluster.objects.get(pk=b.pk).role == "member"
    services.register_cluster(role="member", actor=admin_user, **fields_of_b)  # a refresh that removes nothing


def test_an_over_granted_resource_that_does_not_shrink_does_not_block_an_edit(region, admin_user):
    """Only what the edit lowers is judged: closing a member with no Reserved pool leaves Reserved as it was."""
    a, _ = region
    c = make_cluster("member-c", zone="local-1c")
    make_pool(c, "ondemand", 10)
    make_quota("reserved", 1500, project="ads")  # already over-granted (written directly)

    services.update_cluster_attributes(c.pk, {"schedulable": False}, actor=admin_user)
    with pytest.raises(Invalid, match="cannot stop being schedulable"):
        services.update_cluster_attributes(a.pk, {"schedulable": False}, actor=admin_user)
