"""Grants are regional: a pool may shrink as long as its tier's pools across the schedulable members
still hold the tier's grants; the cluster page shows the region's grants against the region's pools."""

import pytest

from base.errors import Invalid
from clusters import services
from clusters.insight import cluster_detail
from clusters.models import ClusterPool
from tests.support.factories import make_cluster, make_pool, make_quota

pytestmark = pytest.mark.django_db


def shrink(cluster, kind, cpu, actor, memory="0"):
    return services.update_pool(cluster.pk, kind, services.PoolInput(cpu=cpu, memory=memory, gpu="0"), actor=actor)


@pytest.fixture
def two_members():
    a, b = make_cluster("member-a"), make_cluster("member-b", zone="local-1b")
    make_pool(a, "reserved", 40)
    make_pool(b, "reserved", 40)
    return a, b


def test_another_members_pool_holds_the_grants_so_this_one_may_shrink(two_members, admin_user):
    a, _ = two_members
    make_quota("reserved", 50)

    shrink(a, "reserved", "10", admin_user)

    assert ClusterPool.objects.get(cluster=a, kind="reserved").cpu_milli == 10_000


def test_a_shrink_below_the_regions_grants_is_refused_with_the_numbers(two_members, admin_user):
    a, _ = two_members
    make_quota("reserved", 50, project="ads")
    make_quota("reserved", 20, project="ml")

    with pytest.raises(Invalid) as refused:
        shrink(a, "reserved", "24", admin_user)

    [error] = refused.value.fields
    assert error.path == "cpu"
    assert error.message == (
        "The Reserved pool cannot shrink below the quota already granted: the Reserved pools of the region would "
        "hold 64, 6 below the 70 already granted in Reserved."
    )
    assert ClusterPool.objects.get(cluster=a, kind="reserved").cpu_milli == 40_000


def test_an_unschedulable_member_holds_nothing_of_the_region(two_members, admin_user):
    a, b = two_members
    b.schedulable = False
    b.save()
    make_quota("reserved", 30)

    with pytest.raises(Invalid, match="would hold 20, 10 below the 30"):
        shrink(a, "reserved", "20", admin_user)
    shrink(b, "reserved", "0", admin_user)  # not part of the region's capacity: free to change


def test_the_burst_buffer_holds_preemptible_grants(two_members, admin_user):
    a, _ = two_members
    make_pool(a, "burst", 20)
    make_quota("preemptible", 95)

    with pytest.raises(Invalid, match="every pool of the region would hold 90, 5 below the 95 already granted in"):
        shrink(a, "burst", "10", admin_user)


def test_a_pool_may_always_grow_even_when_the_region_is_over_granted(two_members, admin_user):
    a, _ = two_members
    make_quota("reserved", 100)

    shrink(a, "reserved", "50", admin_user)

    assert ClusterPool.objects.get(cluster=a, kind="reserved").cpu_milli == 50_000


def test_the_cluster_page_shows_the_regions_grants_against_the_regions_pools(two_members, monkeypatch):
    a, _ = two_members
    make_quota("reserved", 50, mem_gib=10)
    monkeypatch.setattr("clusters.runtime.member_caches", lambda: {})

    pools = {p["kind"]: p["granted"] for p in cluster_detail(a)["pools"]}

    assert pools["reserved"] == {
        "tier": "Reserved",
        "cpu": "50",
        "memory": "10Gi",
        "gpu": "0",
        "region_cpu": "80",
        "region_memory": "0",
        "region_gpu": "0",
    }
    assert pools["burst"] is None
