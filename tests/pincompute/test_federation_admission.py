"""Federation admission: requests counted as Kubernetes counts them, FCFS per tier, never over a grant."""

import dataclasses
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from pincompute.federation.admission import (
    ADMITTED,
    QUOTA_EXCEEDED,
    RECLAIMED,
    Admission,
    Claim,
    admit,
    claim_of,
    held_by,
    recorded_admission,
)
from pincompute.grants import ALLOCATION_RESOURCES, Allocation, workloads_beyond
from pincompute.quantity import Resources, parse_memory
from pincompute.quota import pod_request, workload_request
from pincompute.runtime import load_profile
from pincompute.runtime.profile import parse_profile
from pincompute.specs import parse
from pincompute.tiers import Tier
from tests.support.examples import example

T0 = datetime(2026, 11, 1, tzinfo=UTC)
MI = 2**20


def claim(key, cpu=0, pods=1, tier=Tier.ONDEMAND, at=0, memory=0, gpu=0):
    return Claim(key, tier, Allocation(cpu, memory, gpu, pods), T0 + timedelta(seconds=at), uid=f"uid-{key}")


# -- counting, as the ResourceQuota counts the pods that will exist -------------------------------------


def test_native_sidecars_add_up_and_plain_init_containers_count_as_a_maximum():
    main = [Resources(500, 0)]
    # sidecar 100m started first; a plain init of 700m runs beside it: 800m peak; running: 600m
    assert pod_request(main, [(Resources(100, 0), True), (Resources(700, 0), False)]) == Resources(800, 0)
    # the same init before the sidecar runs alone: 700m; running: 600m
    assert pod_request(main, [(Resources(700, 0), False), (Resources(100, 0), True)]) == Resources(700, 0)
    assert pod_request(main, [(Resources(100, 0), True), (Resources(50, 0), False)]) == Resources(600, 0)


def test_pod_overhead_is_added_to_every_pod():
    app = parse(example("PinApp"))  # 5 replicas of 500m / 512Mi
    overhead = Resources(250, 64 * MI)

    with_overhead = workload_request(app, overhead=overhead)

    assert with_overhead == workload_request(app) + overhead * 5
    assert claim_of(app, T0, overhead=overhead).request.resources == with_overhead


def test_a_platform_container_with_only_limits_is_counted_at_its_limit_like_a_user_container():
    data = {
        "version": "test",
        "containers": {
            "agent": {"role": "sidecar", "image": "a:1", "resources": {"limits": {"cpu": "300m", "memory": "64Mi"}}},
            "bare": {"role": "init", "image": "b:1"},
        },
        "kinds": {"PinApp": {"containers": ["agent", "bare"]}},
    }
    app = parse(example("PinApp"))

    per_pod = workload_request(app, profile=parse_profile(data)) * 1
    # agent 300m/64Mi runs beside the app (500m/512Mi); bare gets the LimitRange default (100m/128Mi) + agent
    assert per_pod == Resources(5 * 800, 5 * (512 + 64) * MI)


def test_claim_of_counts_the_runtime_profile_requests_and_pods():
    app = parse(example("PinApp"))

    made = claim_of(app, T0, profile=load_profile())

    assert (made.key, made.tier, made.uid) == ("PinApp/web", Tier.RESERVED, "uid-web")
    assert made.request == Allocation(5 * 650, 5 * parse_memory("704Mi"), 0, 5)


# -- the decision -----------------------------------------------------------------------------------------


def test_admits_oldest_first_while_it_fits_and_the_rest_waits_with_the_numbers():
    grants = {Tier.ONDEMAND: Allocation(4000, 0, 0, 10)}
    held = [claim("PinApp/old", 1000, at=0)]
    waiting = [claim("PinApp/late", 1000, at=20), claim("PinApp/big", 2500, at=10), claim("PinPod/first", 2000, at=5)]

    decision = admit(grants, held, waiting)

    assert [c.key for c in decision.admit] == ["PinPod/first", "PinApp/late"]
    assert decision.held[Tier.ONDEMAND] == Allocation(4000, 0, 0, 3)
    (wait,) = decision.wait
    assert (wait.key, wait.admitted, wait.reason) == ("PinApp/big", False, QUOTA_EXCEEDED)
    assert wait.message == (
        "waiting for the OnDemand grant: OnDemand cpu: requested 2500m + 3 held by admitted workloads "
        "exceeds the project's grant of 4 by 1500m"
    )
    assert wait.condition() == {
        "type": "Admitted",
        "status": "False",
        "reason": QUOTA_EXCEEDED,
        "message": wait.message,
    }
    assert decision.verdicts["PinApp/old"].reason == ADMITTED
    assert decision.verdicts["PinApp/late"].message == (
        "admitted in OnDemand: holds cpu 1, memory 0, gpu 0, pods 1 of the grant of cpu 4, memory 0, gpu 0, pods 10"
    )


def test_tiers_are_separate_and_an_absent_grant_is_zero():
    decision = admit(
        {Tier.RESERVED: Allocation(1000, 0, 0, 1)},
        [],
        [claim("a", 1000, tier=Tier.RESERVED), claim("b", 1000, tier=Tier.PREEMPTIBLE)],
    )

    assert [c.key for c in decision.admit] == ["a"]
    assert [(w.key, [s.resource for s in w.shortfalls]) for w in decision.wait] == [("b", ["cpu", "pods"])]


def test_pods_are_counted_against_the_grant():
    decision = admit({Tier.ONDEMAND: Allocation(10_000, 0, 0, 2)}, [claim("a", 1, pods=2)], [claim("b", 1, pods=1)])

    assert decision.wait[0].shortfalls[0].resource == "pods"


def test_a_workload_that_requests_nothing_is_admitted_even_in_a_tier_held_beyond_its_grant():
    over = [claim("big", 5000, tier=Tier.RESERVED)]

    decision = admit(
        {Tier.RESERVED: Allocation(1000, 0, 0, 5)}, over, [claim("PinScaler/s", 0, pods=0, tier=Tier.RESERVED)]
    )

    assert [c.key for c in decision.admit] == ["PinScaler/s"]
    assert decision.reclaim == ()  # Reserved workloads are never reclaimed


def test_preemptible_workloads_are_reclaimed_newest_first_when_the_grant_shrinks():
    held = [
        claim("old", 4000, tier=Tier.PREEMPTIBLE, at=0),
        claim("mid", 3500, tier=Tier.PREEMPTIBLE, at=1),
        claim("new", 2000, tier=Tier.PREEMPTIBLE, at=2),
        claim("newest", 1000, tier=Tier.PREEMPTIBLE, at=3),
    ]

    decision = admit({Tier.PREEMPTIBLE: Allocation(7000, 0, 0, 10)}, held, [])

    # evicting newest, then new is not enough; keeping mid would take old's place, so mid goes and the
    # newer ones fit back beside old: nothing is reclaimed for a newer workload's sake
    assert [c.key for c in decision.reclaim] == ["mid"]
    assert decision.verdicts["mid"].reason == RECLAIMED
    assert decision.verdicts["mid"].message.startswith("reclaimed, newest first, to fit the Preemptible grant: ")
    decision = admit({Tier.PREEMPTIBLE: Allocation(4500, 0, 0, 10)}, held, [])
    assert [c.key for c in decision.reclaim] == ["newest", "new", "mid"]  # eviction order: newest first


def test_a_key_already_admitted_is_not_admitted_twice():
    decision = admit({Tier.ONDEMAND: Allocation(1000, 0, 0, 5)}, [claim("a", 500)], [claim("a", 500)])

    assert decision.admit == () and decision.held[Tier.ONDEMAND].cpu_milli == 500


# -- properties -------------------------------------------------------------------------------------------

tiers = st.sampled_from(list(Tier))
small = st.integers(0, 6)
allocations = st.builds(Allocation, small, small, st.integers(0, 2), st.integers(0, 4))
grant_maps = st.dictionaries(tiers, allocations)
keys = st.sampled_from([f"w{i}" for i in range(8)])
arrival = st.tuples(st.just("arrive"), keys, tiers, allocations)
deletion = st.tuples(st.just("delete"), keys)
regrant = st.tuples(st.just("grant"), grant_maps)


def fits(held, grants):
    return all(
        held[t].amounts()[r] <= grants.get(t, Allocation()).amounts()[r] for t in Tier for r in ALLOCATION_RESOURCES
    )


def run(grants, steps):
    """Arrivals and deletions in any order; after each, one serialized decision applied to the state."""
    admitted, waiting, clock = {}, {}, 0
    for step in steps:
        if step[0] == "arrive" and step[1] not in admitted and step[1] not in waiting:
            clock += 1
            waiting[step[1]] = Claim(step[1], step[2], step[3], T0 + timedelta(seconds=clock))
        elif step[0] == "delete":
            admitted.pop(step[1], None)
            waiting.pop(step[1], None)
        elif step[0] == "grant":
            grants = step[1]
        before = held_by(admitted.values())
        decision = admit(grants, list(admitted.values()), list(waiting.values()))
        for gone in decision.reclaim:
            waiting[gone.key] = admitted.pop(gone.key)
        for new in decision.admit:
            admitted[new.key] = waiting.pop(new.key)
        yield grants, before, decision, held_by(admitted.values())


@settings(max_examples=300)
@given(grant_maps, st.lists(st.one_of(arrival, deletion), max_size=30))
def test_for_any_interleaving_of_arrivals_and_deletions_no_grant_is_ever_exceeded(grants, steps):
    for _, _, decision, held in run(grants, steps):
        assert held == decision.held
        assert fits(held, grants)


@settings(max_examples=300)
@given(grant_maps, st.lists(st.one_of(arrival, deletion, regrant), max_size=30))
def test_when_grants_change_preemptible_is_reclaimed_to_fit_and_no_tier_grows_beyond_its_grant(grants, steps):
    for now, before, _, held in run(grants, steps):
        grant = now.get(Tier.PREEMPTIBLE, Allocation())
        assert all(v >= 0 for v in (grant - held[Tier.PREEMPTIBLE]).amounts().values())
        for tier in Tier:
            limit, was, after = now.get(tier, Allocation()).amounts(), before[tier].amounts(), held[tier].amounts()
            assert all(after[r] <= max(limit[r], was[r]) for r in ALLOCATION_RESOURCES)


claims = st.lists(st.tuples(tiers, allocations), max_size=12).map(
    lambda rows: [Claim(f"w{i}", t, a, T0 + timedelta(seconds=i % 4), f"u{i}") for i, (t, a) in enumerate(rows)]
)


@given(grant_maps, claims)
def test_fcfs_a_waiting_workload_is_never_passed_by_a_later_one_that_needs_at_least_as_much(grants, queue):
    decision = admit(grants, [], list(reversed(queue)))

    for waiting in decision.wait:
        for later in decision.admit:
            if later.tier is waiting.shortfalls[0].tier and later.order > waiting_claim(queue, waiting.key).order:
                need, took = waiting_claim(queue, waiting.key).request.amounts(), later.request.amounts()
                assert not all(took[r] >= need[r] for r in ALLOCATION_RESOURCES)


def waiting_claim(queue, key):
    return next(c for c in queue if c.key == key)


@given(grant_maps, claims, st.randoms())
def test_the_decision_does_not_depend_on_the_order_claims_are_given_in(grants, queue, rnd):
    shuffled = list(queue)
    rnd.shuffle(shuffled)

    assert admit(grants, [], queue) == admit(grants, [], shuffled)


@given(allocations, st.lists(allocations, max_size=8))
def test_reclaim_keeps_exactly_what_admission_would_re_admit_in_order(grant, amounts):
    held = [Claim(f"w{i}", Tier.PREEMPTIBLE, a, T0 + timedelta(seconds=i)) for i, a in enumerate(amounts)]

    decision = admit({Tier.PREEMPTIBLE: grant}, held, [])

    assert {c.key for c in decision.reclaim} == set(workloads_beyond(grant, [(c.key, c.request) for c in held]))
    assert [c.created for c in decision.reclaim] == sorted((c.created for c in decision.reclaim), reverse=True)
    kept = held_by(c for c in held if c not in decision.reclaim)[Tier.PREEMPTIBLE]
    for gone in decision.reclaim:  # nothing reclaimed needlessly: each would not fit back
        assert min((grant - kept - gone.request).amounts().values()) < 0


# -- changes of admitted workloads (scale, edit, a kubectl patch of the host object) ------------------------


def test_a_growth_that_fits_beside_the_others_replaces_what_was_held():
    grants = {Tier.ONDEMAND: Allocation(4000, 0, 0, 10)}
    held = [claim("PinApp/web", 1000, at=0), claim("PinPod/db", 1000, at=1)]

    decision = admit(grants, held, [], [claim("PinApp/web", 3000, pods=3, at=0)])

    assert [c.request.cpu_milli for c in decision.changed] == [3000]
    assert decision.held[Tier.ONDEMAND] == Allocation(4000, 0, 0, 4)
    assert decision.pending == {} and decision.verdicts["PinApp/web"].message.startswith(
        "admitted in OnDemand: holds cpu 3"
    )


def test_a_growth_that_does_not_fit_waits_with_the_numbers_and_the_workload_keeps_what_it_holds():
    grants = {Tier.ONDEMAND: Allocation(4000, 0, 0, 10)}
    held = [claim("PinApp/web", 1000, at=0), claim("PinPod/db", 2000, at=1)]

    decision = admit(grants, held, [], [claim("PinApp/web", 3000, pods=3, at=0)])

    assert decision.changed == () and decision.verdicts["PinApp/web"].admitted
    assert decision.held[Tier.ONDEMAND] == Allocation(3000, 0, 0, 2)
    waits = decision.pending["PinApp/web"]
    assert waits.reason == QUOTA_EXCEEDED
    assert waits.message == (
        "the change waits for the OnDemand grant (what was admitted keeps running, holding cpu 1, memory 0, gpu 0, "
        "pods 1): OnDemand cpu: requested 3 + 2 held by admitted workloads exceeds the project's grant of 4 by 1"
    )


def test_a_shrink_is_admitted_at_once_even_in_a_tier_held_beyond_its_grant():
    grants = {Tier.ONDEMAND: Allocation(1000, 0, 0, 10)}  # the grant was forced below what is held
    held = [claim("PinApp/web", 3000, pods=3, at=0)]

    decision = admit(grants, held, [claim("PinPod/new", 100, at=5)], [claim("PinApp/web", 2000, pods=2, at=0)])

    assert [c.request.cpu_milli for c in decision.changed] == [2000]
    assert decision.held[Tier.ONDEMAND] == Allocation(2000, 0, 0, 2)
    assert [w.key for w in decision.wait] == ["PinPod/new"]


def test_a_growth_waits_in_its_queue_place_behind_an_older_waiting_workload():
    grants = {Tier.ONDEMAND: Allocation(3000, 0, 0, 10)}
    held = [claim("PinApp/web", 1000, at=10)]
    older = claim("PinPod/older", 2000, at=5)

    decision = admit(grants, held, [older], [claim("PinApp/web", 2000, pods=2, at=10)])

    assert decision.admit == (older,) and "PinApp/web" in decision.pending


def test_a_recorded_admission_reads_back_as_written():
    record = Admission(7, "0123456789abcdef", Tier.RESERVED, Allocation(1500, 3 * 2**30 + 512, 2, 4))

    assert recorded_admission({"status": {"admission": record.to_status()}}) == record
    assert recorded_admission({"status": {"admission": {"request": {"cpu": "lots"}}}}) is None
    assert recorded_admission({"status": {}}) is None


changes = st.tuples(st.just("change"), keys, tiers, allocations)


@settings(max_examples=300)
@given(grant_maps, st.lists(st.one_of(arrival, deletion, changes), max_size=40))
def test_for_any_interleaving_of_arrivals_changes_and_deletions_what_is_held_never_exceeds_a_grant(grants, steps):
    admitted, waiting, proposed, clock = {}, {}, {}, 0
    for step in steps:
        if step[0] == "arrive" and step[1] not in admitted and step[1] not in waiting:
            clock += 1
            waiting[step[1]] = Claim(step[1], step[2], step[3], T0 + timedelta(seconds=clock))
        elif step[0] == "change" and step[1] in admitted:
            proposed[step[1]] = dataclasses.replace(admitted[step[1]], tier=step[2], request=step[3])
        elif step[0] == "delete":
            for state in (admitted, waiting, proposed):
                state.pop(step[1], None)
        before = held_by(admitted.values())
        decision = admit(grants, list(admitted.values()), list(waiting.values()), list(proposed.values()))
        for new in decision.admit:
            admitted[new.key] = waiting.pop(new.key)
        for change in decision.changed:
            admitted[change.key] = proposed.pop(change.key)
        assert set(decision.pending) == set(proposed)
        now = held_by(admitted.values())
        for tier in Tier:  # within the grant, or (a shrink in an over-held tier) no more than before
            limit, was, after = grants.get(tier, Allocation()).amounts(), before[tier].amounts(), now[tier].amounts()
            counted = decision.held[tier].amounts()  # writes land in any order: none may use room another frees
            assert all(after[r] <= counted[r] <= max(limit[r], was[r]) for r in ALLOCATION_RESOURCES)


def test_room_a_growing_change_frees_in_another_resource_is_not_given_away_in_the_same_pass():
    # web trades memory for cpu; its memory is released only once its record is written, and the pass's writes
    # land in any order: a newcomer must not be admitted into that memory before then
    grants = {Tier.ONDEMAND: Allocation(4000, 4 * MI, 0, 10)}
    held = [claim("PinApp/web", 1000, memory=4 * MI, at=0)]

    decision = admit(
        grants, held, [claim("PinPod/new", 100, memory=2 * MI, at=5)], [claim("PinApp/web", 2000, memory=MI, at=0)]
    )

    assert [c.key for c in decision.changed] == ["PinApp/web"]
    assert [w.key for w in decision.wait] == ["PinPod/new"]
    assert admit(grants, [decision.changed[0]], [claim("PinPod/new", 100, memory=2 * MI, at=5)]).admit  # next pass
