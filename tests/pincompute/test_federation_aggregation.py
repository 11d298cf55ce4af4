"""Aggregating member shard statuses into the host object's status: rows, totals, conditions, order-free."""

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from pincompute.federation.aggregation import ShardObservation, aggregate
from pincompute.status import aggregate_shards

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def member_status(ready, desired, *, progressing=False, degraded=False, at="2026-11-01T11:00:00Z", phase="Available"):
    def cond(type_, value):
        return {
            "type": type_,
            "status": "True" if value else "False",
            "reason": phase,
            "message": "",
            "lastTransitionTime": at,
        }

    return {
        "replicas": desired,
        "readyReplicas": ready,
        "updatedReplicas": ready,
        "phase": phase,
        "conditions": [cond("Ready", ready >= desired), cond("Progressing", progressing), cond("Degraded", degraded)],
    }


def conditions(status):
    return {c["type"]: c for c in status["conditions"]}


def test_rows_totals_and_ready_when_every_shard_is():
    status = aggregate(
        [
            ShardObservation("member-b", "local-1b", member_status(2, 2), seen_at=T0),
            ShardObservation("member-a", "local-1a", member_status(3, 3), seen_at=T0),
        ]
    )

    assert [(s["cluster"], s["zone"], s["readyReplicas"], s["replicas"]) for s in status["shards"]] == [
        ("member-a", "local-1a", 3, 3),
        ("member-b", "local-1b", 2, 2),
    ]
    assert status["shards"][0]["lastSeen"] == "2026-11-01T12:00:00Z"
    assert status["shards"][0]["phase"] == "Available"
    assert [c["type"] for c in status["shards"][0]["conditions"]] == ["Degraded", "Progressing", "Ready"]
    assert (status["replicas"], status["readyReplicas"]) == (5, 5)
    assert {t: (c["status"], c["reason"]) for t, c in conditions(status).items()} == {
        "Ready": ("True", "AllShards"),
        "Progressing": ("False", "AllShards"),
        "Degraded": ("False", "AllShards"),
    }


def test_an_unreachable_member_is_an_unknown_shard_with_since_when():
    since = T0 - timedelta(minutes=7)
    status = aggregate(
        [
            ShardObservation("member-a", "local-1a", member_status(3, 3), seen_at=T0),
            ShardObservation("member-b", "local-1b", member_status(2, 2), seen_at=since, reachable=False, since=since),
        ]
    )

    row = status["shards"][1]
    assert (row["state"], row["message"]) == ("Unknown", "member unreachable since 2026-11-01T11:53:00Z")
    assert (row["replicas"], row["readyReplicas"], row["unreachableSince"]) == (2, 0, "2026-11-01T11:53:00Z")
    ready = conditions(status)["Ready"]
    assert (ready["status"], ready["reason"]) == ("Unknown", "MemberUnreachable")
    assert ready["message"] == "member-b unreachable since 2026-11-01T11:53:00Z"
    assert ready["lastTransitionTime"] == "2026-11-01T11:53:00Z"
    assert conditions(status)["Degraded"]["status"] == "Unknown"


def test_a_shard_known_not_ready_wins_over_an_unreachable_one_and_both_are_named():
    status = aggregate(
        [
            ShardObservation("member-a", status=member_status(1, 3, progressing=True), seen_at=T0),
            ShardObservation("member-b", reachable=False, since=T0),
        ]
    )

    ready = conditions(status)["Ready"]
    assert (ready["status"], ready["reason"]) == ("False", "ShardsNotReady")
    assert ready["message"] == "clusters: member-a; member-b unreachable since 2026-11-01T12:00:00Z"
    assert conditions(status)["Progressing"]["status"] == "True"


def test_a_member_that_has_not_reported_yet_is_not_ready_and_no_shards_at_all_is_said_so():
    status = aggregate([ShardObservation("member-a", "local-1a")])
    assert status["shards"][0]["state"] == "Unknown"
    assert conditions(status)["Ready"]["status"] == "False"

    empty = aggregate([])
    assert conditions(empty)["Ready"]["reason"] == "NoShards"
    assert conditions(empty)["Progressing"]["status"] == "True"


def test_the_newest_observation_of_a_cluster_wins():
    old = ShardObservation("member-a", status=member_status(0, 3), seen_at=T0)
    new = ShardObservation("member-a", status=member_status(3, 3), seen_at=T0 + timedelta(seconds=5))
    down = ShardObservation("member-a", reachable=False, since=T0 + timedelta(seconds=9))

    assert aggregate([new, old])["readyReplicas"] == 3
    assert aggregate([old, down, new])["shards"][0]["state"] == "Unknown"


def test_aggregate_shards_keeps_working_on_plain_status_mappings():
    total = aggregate_shards({"b": member_status(1, 2), "a": member_status(2, 2)})
    assert conditions(total)["Ready"]["message"] == "clusters: b"


# -- properties ---------------------------------------------------------------------------------------------

moments = st.integers(0, 5).map(lambda m: T0 + timedelta(minutes=m))
statuses = st.builds(
    member_status,
    st.integers(0, 3),
    st.integers(0, 3),
    progressing=st.booleans(),
    degraded=st.booleans(),
    at=st.sampled_from(["", "2026-11-01T10:00:00Z", "2026-11-01T11:00:00Z"]),
    phase=st.sampled_from(["Available", "Progressing", "Failed"]),
)
observations = st.builds(
    ShardObservation,
    st.sampled_from(["member-a", "member-b", "member-c"]),
    st.sampled_from(["", "local-1a", "local-1b"]),
    st.none() | statuses,
    st.none() | moments,
    st.booleans(),
    st.none() | moments,
)


def test_two_observations_at_the_same_moment_one_seen_one_unreachable_since_pick_the_same_winner():
    """Found by the property below: equal newest times, one as seen_at and one as since, tied."""
    moment = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
    a = ShardObservation(cluster="member-b", zone="", status=None, seen_at=moment, reachable=False, since=None)
    b = ShardObservation(cluster="member-b", zone="", status=None, seen_at=None, reachable=False, since=moment)

    assert aggregate([a, b]) == aggregate([b, a])


@given(st.lists(observations, max_size=8), st.randoms())
def test_aggregation_does_not_depend_on_the_order_of_the_shard_inputs(inputs, rnd):
    shuffled = list(inputs)
    rnd.shuffle(shuffled)

    assert aggregate(shuffled) == aggregate(inputs)


@given(st.lists(observations, max_size=8))
def test_aggregation_is_idempotent(inputs):
    assert aggregate(inputs + inputs) == aggregate(inputs)


@given(st.lists(observations, max_size=8))
def test_totals_are_the_sum_of_the_rows_and_unreachable_shards_are_never_ready(inputs):
    status = aggregate(inputs)

    assert status["readyReplicas"] == sum(s["readyReplicas"] for s in status["shards"])
    assert all(s["readyReplicas"] == 0 for s in status["shards"] if "unreachableSince" in s)
    if conditions(status)["Ready"]["status"] == "True":
        assert all(s["state"] == "Ready" for s in status["shards"])
