"""Event aggregation: one Event per (object, type, reason, message), count grows, writes throttled."""

from pincompute.operator.events import EventAggregator


def test_repeats_patch_one_event_with_a_growing_count_at_most_every_interval():
    now = [0.0]
    agg = EventAggregator(min_interval=10, clock=lambda: now[0])
    key = ("uid-1", "Warning", "ReconcileError", "503 Service Unavailable")

    first = agg.decide(key, "web")
    skipped = [agg.decide(key, "web") for _ in range(50)]
    now[0] = 11
    patched = agg.decide(key, "web")

    assert first.action == "create" and first.count == 1
    assert {d.action for d in skipped} == {"skip"}
    assert patched.action == "patch" and patched.count == 52 and patched.name == first.name


def test_different_messages_are_different_events():
    agg = EventAggregator(clock=lambda: 0.0)

    a = agg.decide(("u", "Normal", "Created", "applied Pod/a"), "x")
    b = agg.decide(("u", "Normal", "Created", "applied Service/a"), "x")

    assert a.action == b.action == "create" and a.name != b.name


def test_forgetting_an_object_starts_over_and_memory_is_bounded():
    agg = EventAggregator(max_keys=3, clock=lambda: 0.0)
    for index in range(10):
        agg.decide(("u", "Normal", "R", str(index)), "x")
    agg.forget_object("u")

    assert agg.decide(("u", "Normal", "R", "0"), "x").action == "create"
    assert len(agg._seen) == 1
