"""From a host object to its shards: member clusters, the placement request, shard manifests, the zone
rollout across members, and revisions."""

import copy

from hypothesis import given
from hypothesis import strategies as st

from pincompute.cluster_scheduling import place
from pincompute.federation.members import MemberSpec, NodeSummary, candidate_of, member_cluster_manifest
from pincompute.federation.propagation import (
    placement_request,
    placement_status,
    placements_of,
    shard_manifest,
    spec_hash,
)
from pincompute.federation.revisions import revision_manifest, revision_name, spec_changes, to_prune
from pincompute.federation.rollout import LiveShard, shard_specs
from pincompute.labels import CLUSTER_ANNOTATION, FEDERATED_LABEL, REPLICAS_ANNOTATION, SPEC_HASH_ANNOTATION
from pincompute.placement import Placement
from pincompute.quantity import Resources
from pincompute.runtime import load_profile
from pincompute.specs import parse
from pincompute.tiers import Tier
from tests.support.examples import example

GI = 2**30
PROFILE = load_profile()


def member(name, zone, **kw):
    pools = {"reserved": Resources(40_000, 160 * GI), "ondemand": Resources(40_000, 160 * GI), "burst": Resources()}
    return member_cluster_manifest(MemberSpec(name, "r1", zone, ("general",), pools, **kw))


def node(cpu, memory, unschedulable=False):
    return {"spec": {"unschedulable": unschedulable}, "status": {"allocatable": {"cpu": cpu, "memory": memory}}}


def test_a_member_cluster_object_reads_back_as_the_candidate_the_scheduler_places_on():
    obj = member("member-a", "z1", labels={"gpu": "no"}, taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])
    nodes = NodeSummary.of([node("8", "32Gi"), node("16", "64Gi"), node("64", "256Gi", unschedulable=True)])

    candidate = candidate_of(obj, healthy=True, tier_requested={Tier.ONDEMAND: Resources(1000)}, nodes=nodes)

    assert (candidate.name, candidate.zone, candidate.region, candidate.role) == ("member-a", "z1", "r1", "member")
    assert candidate.pool_capacity[Tier.ONDEMAND] == Resources(40_000, 160 * GI)
    assert candidate.node_count == 2 and candidate.node_allocatable == Resources(16_000, 64 * GI)  # cordoned left out
    assert candidate.labels == {"gpu": "no"} and candidate.taints[0]["effect"] == "NoSchedule"
    assert candidate.free(Tier.ONDEMAND) == Resources(39_000, 160 * GI)
    assert not candidate_of(
        {**obj, "spec": {**obj["spec"], "schedulable": False}}, healthy=True, tier_requested={}
    ).schedulable


def test_a_pinapp_is_sharded_over_its_zones_with_the_runtime_counted_in_each_replica():
    app = parse(example("PinApp"))
    request = placement_request(app, PROFILE)
    candidates = [
        candidate_of(member(n, z), healthy=True, tier_requested={}, nodes=NodeSummary(3, Resources(16_000, 64 * GI)))
        for n, z in (("a", app.zones[0]), ("b", app.zones[-1]))
    ]

    decision = place(request, candidates)

    assert request.zones == app.zones and request.replicas == app.replicas
    assert request.request_per_replica.cpu_milli > app.template.user_request().cpu_milli  # platform sidecars
    assert sorted(p.replicas for p in decision.shards) == sorted(
        [app.replicas // 2 + app.replicas % 2, app.replicas // 2]
    )
    assert placement_request(parse(example("PinScaler"))) is None  # it follows its target


def test_a_shard_is_the_host_spec_with_the_placement_annotations_and_the_federation_label():
    host = {**example("PinApp"), "metadata": {**example("PinApp")["metadata"], "uid": "u-1", "labels": {"x": "y"}}}
    shard = shard_manifest(host, Placement("member-b", "z2", "r1", 1, 2, 3), host["spec"])

    assert shard["spec"] == host["spec"] and shard["spec"] is not host["spec"]
    notes = shard["metadata"]["annotations"]
    assert notes[CLUSTER_ANNOTATION] == "member-b" and notes[REPLICAS_ANNOTATION] == "3"
    assert notes[SPEC_HASH_ANNOTATION] == spec_hash(host["spec"])
    assert shard["metadata"]["labels"] == {
        "x": "y",
        FEDERATED_LABEL: "true",
        "app.kubernetes.io/managed-by": "pincompute",
    }
    assert "status" not in shard and "uid" not in shard["metadata"]
    job = shard_manifest(
        example("PinterestJobSet"), Placement("a", "z1", replicas=4), example("PinterestJobSet")["spec"]
    )
    assert REPLICAS_ANNOTATION not in job["metadata"]["annotations"]  # only replica kinds take a shard size


@given(
    st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 9), st.one_of(st.none(), st.integers(0, 50))), max_size=4)
)
def test_the_placement_recorded_in_status_reads_back_as_the_same_shards(rows):
    shards = [Placement(c, f"z{i}", "r", i, len(rows), r) for i, (c, _, r) in enumerate(rows)]
    from datetime import UTC, datetime

    status = {"placement": placement_status(shards, None, generation=3, now=datetime(2026, 1, 1, tzinfo=UTC))}

    assert placements_of(status) == shards
    assert placements_of({}) == [] and placements_of(None) == []


def live(spec, *, ready=True, updated=2, available=2, observed=1, generation=1):
    return LiveShard(spec, generation, observed, ready, 2, updated, available)


def test_an_image_edit_reaches_the_first_zone_and_holds_the_others_until_it_is_ready():
    app = parse(example("PinApp"))
    old = example("PinApp")["spec"]
    new = copy.deepcopy(old)
    new["template"]["containers"][0]["image"] = "registry.local/x:2"
    first, second = app.rollout.zone_order[0], app.rollout.zone_order[1]
    shards = [Placement("a", first, replicas=2), Placement("b", second, shard_index=1, replicas=2)]

    rolling = shard_specs(new, parse({**example("PinApp"), "spec": new}), shards, {"a": live(old), "b": live(old)})
    assert rolling["a"] == new and rolling["b"]["template"] == old["template"]
    assert rolling["b"]["replicas"] == new["replicas"]

    halfway = {"a": live(new, updated=1, observed=2, generation=2), "b": live(old)}
    assert (
        shard_specs(new, parse({**example("PinApp"), "spec": new}), shards, halfway)["b"]["template"] == old["template"]
    )

    done = {"a": live(new, observed=2, generation=2), "b": live(old)}
    assert shard_specs(new, parse({**example("PinApp"), "spec": new}), shards, done)["b"] == new
    assert shard_specs(new, None, shards, {})["b"] == new  # not a PinApp, or nothing live: everything at once
    assert app.rollout.zone_order[:2] == (first, second)


def test_revisions_are_named_by_spec_and_the_history_is_bounded_keeping_the_current_one():
    host = {**example("PinPod"), "metadata": {**example("PinPod")["metadata"], "uid": "u-1"}}
    rev = revision_manifest(host, 7)

    assert rev["metadata"]["name"] == revision_name("PinPod", host["metadata"]["name"], host["spec"])
    assert rev["revision"] == 7 and rev["data"] == {"spec": host["spec"]}
    assert rev["metadata"]["ownerReferences"][0]["uid"] == "u-1"
    history = [{"metadata": {"name": f"r{i}"}, "revision": i} for i in range(1, 15)]
    assert to_prune(history, "r14", keep=10) == ["r4", "r3", "r2", "r1"]
    assert "r1" not in to_prune(history, "r1", keep=10)


def test_spec_changes_name_each_field_that_differs():
    before = {"replicas": 2, "template": {"containers": [{"image": "a:1", "name": "c"}]}, "zones": ["z1"]}
    after = {"replicas": 3, "template": {"containers": [{"image": "a:2", "name": "c"}]}, "zones": ["z1", "z2"]}

    changes = {c.path: (c.before, c.after) for c in spec_changes(before, after)}

    assert changes == {
        "spec.replicas": (2, 3),
        "spec.template.containers[0].image": ("a:1", "a:2"),
        "spec.zones": (["z1"], ["z1", "z2"]),
    }
    assert spec_changes(before, copy.deepcopy(before)) == []
