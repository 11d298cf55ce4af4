"""A member's pools and zone against its nodes (pure)."""

from pincompute.federation.member_fit import NodeFit, pool_overflows, zone_mismatch
from pincompute.quantity import Resources

GIB = 1024**3


def node(cpu: str, memory: str, zone: str | None = None, *, cordoned: bool = False) -> dict:
    labels = {"topology.kubernetes.io/zone": zone} if zone else {}
    return {
        "metadata": {"labels": labels},
        "spec": {"unschedulable": True} if cordoned else {},
        "status": {"allocatable": {"cpu": cpu, "memory": memory}},
    }


def test_pools_are_checked_against_the_schedulable_nodes_only():
    nodes = NodeFit.of([node("32", "128Gi", "z1"), node("32", "128Gi", "z1"), node("64", "256Gi", "z1", cordoned=True)])

    [over] = pool_overflows({"reserved": Resources(60_000), "ondemand": Resources(8_000)}, nodes)

    assert (over.resource, over.total, over.allocatable) == ("cpu", 68_000, 64_000)
    assert over.room_for("reserved") == 56_000 and over.room_for("burst") == 0
    assert pool_overflows({"reserved": Resources(64_000, 256 * GIB)}, nodes) == []


def test_a_zone_must_be_one_the_labelled_nodes_are_in():
    nodes = NodeFit.of([node("1", "1Gi", "z1"), node("1", "1Gi", "z2"), node("1", "1Gi")])

    assert nodes.zones == {"z1": 1, "z2": 1}
    assert zone_mismatch("z2", nodes) is None
    assert "labels say z1 (1 node), z2 (1 node). Use one of them" in (zone_mismatch("z3", nodes) or "")
    assert zone_mismatch("anywhere", NodeFit.of([node("1", "1Gi")])) is None  # unlabelled nodes say nothing
