from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from clusters.kube.aggregates import Resources, node_contribution, pod_requests, tier_of
from clusters.kube.cache import cluster_store
from pincompute.kube.store import Store
from tests.support.pods import realistic_pod


def pod(
    ns, name, *, phase="Running", tier="pincompute-ondemand", cpu="500m", mem="1Gi", gpu=0, labels=None, owner=None
):
    containers = [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": mem, "nvidia.com/gpu": gpu}}}]
    meta = {"namespace": ns, "name": name, "labels": labels or {}, "managedFields": [{"manager": "x"}]}
    if owner:
        meta["ownerReferences"] = [{"uid": owner, "kind": "ReplicaSet", "name": owner}]
    return {"metadata": meta, "spec": {"priorityClassName": tier, "containers": containers}, "status": {"phase": phase}}


def node(name, zone, family, *, ready=True, cpu="32", mem="128Gi", gpu=0):
    return {
        "metadata": {
            "name": name,
            "labels": {"topology.kubernetes.io/zone": zone, "pincompute.io/hardware-family": family},
        },
        "status": {
            "allocatable": {"cpu": cpu, "memory": mem, "nvidia.com/gpu": str(gpu)},
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def test_objects_are_slimmed_and_found_by_key_namespace_label_and_owner():
    store = cluster_store()
    store.replace("pods", [pod("a", "p1", labels={"app": "web"}, owner="rs1"), pod("b", "p2", labels={"app": "db"})])

    assert "managedFields" not in store.get("pods", "a", "p1")["metadata"]
    assert store.get("pods", "a", "missing") is None
    assert [p["metadata"]["name"] for p in store.list("pods", namespace="a")] == ["p1"]
    assert [p["metadata"]["name"] for p in store.list("pods", label_selector={"app": "db"})] == ["p2"]
    assert [p["metadata"]["name"] for p in store.list("pods", owner_uid="rs1")] == ["p1"]
    assert store.list("pods", namespace="b", label_selector={"app": "web"}) == []
    assert store.count("pods") == 2 and store.count("pods", namespace="a") == 1
    assert store.list("nodes") == [] and store.count("unknown") == 0


def test_keys_are_the_namespaces_and_names_without_the_objects():
    store = cluster_store()
    store.replace("pods", [pod("a", "p1"), pod("b", "p2"), pod("a", "p3")])
    store.apply("pods", "DELETED", pod("a", "p1"))

    assert sorted(store.keys("pods")) == [("a", "p3"), ("b", "p2")]
    assert store.keys("pods", "a") == [("a", "p3")] and store.keys("pods", "c") == [] and store.keys("nodes") == []


def test_the_core_store_without_slimmer_or_aggregators_keeps_objects_whole():
    store = Store()  # the operator's: its server-side-apply plan reads managedFields
    store.replace("Pod", [pod("a", "p1")])

    assert store.get("Pod", "a", "p1")["metadata"]["managedFields"] == [{"manager": "x"}]
    assert store.aggregates() == {}


def test_replace_returns_what_vanished_since_the_last_list():
    store = Store()
    assert store.replace("Pod", [pod("a", "p1"), pod("a", "p2")]) == []

    gone = store.replace("Pod", [pod("a", "p2"), pod("a", "p3")])

    assert [p["metadata"]["name"] for p in gone] == ["p1"]
    assert [p["metadata"]["name"] for p in store.list("Pod")] == ["p2", "p3"]


def test_put_if_newer_never_moves_an_object_back_in_time():
    store = Store()
    newer = pod("a", "p1", labels={"v": "2"})
    newer["metadata"]["resourceVersion"] = "20"
    older = pod("a", "p1", labels={"v": "1"})
    older["metadata"]["resourceVersion"] = "19"
    store.apply("Pod", "MODIFIED", newer)

    assert not store.put_if_newer("Pod", older)
    assert store.get("Pod", "a", "p1")["metadata"]["labels"] == {"v": "2"}
    newest = pod("a", "p1", labels={"v": "3"})
    newest["metadata"]["resourceVersion"] = "21"
    assert store.put_if_newer("Pod", newest) and store.list("Pod", label_selector={"v": "2"}) == []
    assert store.put_if_newer("Pod", pod("a", "p2"))  # not stored yet: always taken


def test_label_selector_on_a_non_indexed_label_falls_back_to_scanning():
    store = cluster_store(frozenset({"pincompute.io/project"}))
    store.replace(
        "pods",
        [
            pod("a", "p1", labels={"app": "web", "pincompute.io/project": "a"}),
            pod("a", "p2", labels={"app": "db", "pincompute.io/project": "a"}),
        ],
    )

    found = store.list("pods", label_selector={"pincompute.io/project": "a", "app": "db"})

    assert [p["metadata"]["name"] for p in found] == ["p2"]


def test_modified_replaces_and_deleted_removes_including_from_indexes():
    store = cluster_store()
    store.apply("pods", "ADDED", pod("a", "p1", labels={"app": "web"}))
    store.apply("pods", "MODIFIED", pod("a", "p1", labels={"app": "api"}))

    assert store.list("pods", label_selector={"app": "web"}) == []
    assert len(store.list("pods", label_selector={"app": "api"})) == 1

    store.apply("pods", "DELETED", pod("a", "p1", labels={"app": "api"}))
    assert store.count("pods") == 0 and store.list("pods", label_selector={"app": "api"}) == []
    assert store.aggregates()["requests_by_namespace"] == {}


def test_events_are_bounded_to_the_newest():
    store = cluster_store()
    events = [
        {"metadata": {"namespace": "a", "name": f"e{i}"}, "lastTimestamp": f"2025-01-01T00:{i % 60:02d}:00Z"}
        for i in range(60)
    ]
    store.replace("events", reversed(events), max_objects=10)
    assert {e["metadata"]["name"] for e in store.list("events")} == {f"e{i}" for i in range(50, 60)}

    store.apply("events", "ADDED", {"metadata": {"namespace": "a", "name": "new"}}, max_objects=10)

    assert store.count("events") == 10 and store.get("events", "a", "e50") is None
    assert store.get("events", "a", "new") is not None


def test_aggregates_requests_by_namespace_tier_and_phase_and_nodes_by_zone_and_family():
    store = cluster_store()
    store.replace(
        "pods",
        [
            pod("a", "p1", cpu="500m", mem="1Gi", gpu=1, tier="pincompute-reserved"),
            pod("a", "p2", cpu="1", mem="512Mi", tier="custom-class"),
            pod("b", "p3", phase="Succeeded"),
            realistic_pod(1, namespace="b"),
        ],
    )
    store.replace(
        "nodes", [node("n1", "z1", "gpu", gpu=8), node("n2", "z1", "general", ready=False), node("n3", "z2", "general")]
    )

    agg = store.aggregates()

    assert agg["requests_by_namespace"]["a"] == Resources(1500, 2**30 + 2**29, 1, 2)
    assert agg["requests_by_namespace"]["b"] == Resources(500, 512 * 2**20, 0, 1)
    assert agg["requests_by_tier"]["other"] == Resources(1000, 2**29, 0, 1)
    assert agg["requests_by_namespace_tier"][("a", "pincompute-reserved")] == Resources(500, 2**30, 1, 1)
    assert agg["pods_by_phase"] == {"Running": 3, "Succeeded": 1}
    assert agg["allocatable_by_zone"]["z1"] == Resources(64000, 256 * 2**30, 8, 2)
    assert agg["allocatable_by_family"]["general"].count == 2
    assert (agg["nodes_total"], agg["nodes_ready"]) == (3, 2)


def test_an_unparsable_quantity_counts_the_pod_but_not_its_request():
    store = cluster_store()
    store.apply("pods", "ADDED", pod("a", "p1", cpu="lots"))
    assert store.aggregates()["requests_by_namespace"]["a"] == Resources(count=1)


# -- property: incremental == recomputed from the final object set ------------------------------
names = st.sampled_from([("a", "p1"), ("a", "p2"), ("b", "p1"), ("b", "p3"), ("c", "p4")])
pods_st = st.builds(
    lambda key, phase, tier, cpu, mem, gpu, app, owner: pod(
        key[0],
        key[1],
        phase=phase,
        tier=tier,
        cpu=cpu,
        mem=mem,
        gpu=gpu,
        labels={"app": app} if app else {},
        owner=owner,
    ),
    names,
    st.sampled_from(["Pending", "Running", "Succeeded", "Failed"]),
    st.sampled_from(["pincompute-reserved", "pincompute-ondemand", "pincompute-preemptible", "x", None]),
    st.sampled_from(["100m", "1", "2.5", "0"]),
    st.sampled_from(["1Gi", "128Mi", "1e3"]),
    st.integers(0, 2),
    st.sampled_from(["web", "db", None]),
    st.sampled_from(["rs1", "rs2", None]),
)
nodes_st = st.builds(
    lambda i, zone, fam, ready, cpu: node(f"n{i}", zone, fam, ready=ready, cpu=cpu),
    st.integers(0, 3),
    st.sampled_from(["z1", "z2"]),
    st.sampled_from(["gpu", "general"]),
    st.booleans(),
    st.sampled_from(["8", "16", "31500m"]),
)
ops = st.lists(
    st.one_of(
        st.tuples(st.just("pods"), st.sampled_from(["ADDED", "MODIFIED", "DELETED"]), pods_st),
        st.tuples(st.just("nodes"), st.sampled_from(["ADDED", "MODIFIED", "DELETED"]), nodes_st),
    ),
    max_size=40,
)


def recompute(pods, nodes):
    """The naive definition, written independently of aggregates.py's incremental tables."""
    ns, tier, phases = {}, {}, Counter()
    for p in pods:
        phases[p["status"]["phase"]] += 1
        if p["status"]["phase"] in ("Succeeded", "Failed"):
            continue
        r = pod_requests(p)
        ns[p["metadata"]["namespace"]] = ns.get(p["metadata"]["namespace"], Resources()) + r
        tier[tier_of(p)] = tier.get(tier_of(p), Resources()) + r
    zones = {}
    for n in nodes:
        c = node_contribution(n)
        zones[c.zone] = zones.get(c.zone, Resources()) + c.allocatable
    ready = sum(node_contribution(n).ready for n in nodes)
    return ns, tier, dict(phases), zones, len(nodes), ready


@settings(max_examples=300, deadline=None)
@given(ops)
def test_incremental_aggregates_equal_a_recompute_of_the_final_objects(seq):
    store, final = cluster_store(), {"pods": {}, "nodes": {}}
    for kind, etype, obj in seq:
        key = (obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
        store.apply(kind, etype, obj)
        if etype == "DELETED":
            final[kind].pop(key, None)
        else:
            final[kind][key] = obj

    agg = store.aggregates()
    ns, tier, phases, zones, total, ready = recompute(final["pods"].values(), final["nodes"].values())
    assert agg["requests_by_namespace"] == ns
    assert agg["requests_by_tier"] == tier
    assert agg["pods_by_phase"] == phases
    assert agg["allocatable_by_zone"] == zones
    assert (agg["nodes_total"], agg["nodes_ready"]) == (total, ready)
    fresh = cluster_store()
    fresh.replace("pods", final["pods"].values())
    fresh.replace("nodes", final["nodes"].values())
    assert fresh.aggregates() == agg
    for app in ("web", "db"):
        want = {k for k, p in final["pods"].items() if p["metadata"]["labels"].get("app") == app}
        found = store.list("pods", label_selector={"app": app})
        got = {(p["metadata"]["namespace"], p["metadata"]["name"]) for p in found}
        assert got == want
    for owner in ("rs1", "rs2"):
        want = {
            k
            for k, p in final["pods"].items()
            if any(r["uid"] == owner for r in p["metadata"].get("ownerReferences", []))
        }
        assert {
            (p["metadata"]["namespace"], p["metadata"]["name"]) for p in store.list("pods", owner_uid=owner)
        } == want
