"""The diagnosis: one sentence per state, the blocking cause in the stated precedence, with its numbers."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pincompute.cluster_scheduling import ClusterCandidate, PlacementRequest, place
from pincompute.diagnosis import PRECEDENCE, Evidence, State, Target, diagnose
from pincompute.diagnosis.placement import short_reason
from pincompute.diagnosis.text import clause, is_one_sentence
from pincompute.errors import NoFeasibleCluster
from pincompute.grants import Allocation
from pincompute.quantity import Resources
from pincompute.tiers import Tier

GI = 2**30
PROBLEMS = [s for s in PRECEDENCE if s not in (State.PROGRESSING, State.SUCCEEDED, State.RUNNING)]
PROBLEMS.remove(State.WAITING_FOR_ADMISSION)  # one Admitted condition says quota or no verdict: tested apart


def host_object(name: str = "web", **status: Any) -> dict[str, Any]:
    return {
        "apiVersion": "pincompute.io/v1alpha1",
        "kind": "PinApp",
        "metadata": {
            "name": name,
            "namespace": "proj-a",
            "uid": f"uid-{name}",
            "creationTimestamp": "2026-11-01T00:00:00Z",
        },
        "spec": {"tier": "OnDemand", "replicas": 3, "operations": {}},
        "status": {"conditions": [], "shards": [], **status},
    }


def condition(type_: str, status: str, reason: str = "", message: str = "") -> dict[str, str]:
    return {"type": type_, "status": status, "reason": reason, "message": message}


def admitted_with(name: str, cpu: str, tier: str = "OnDemand", created: str = "2026-10-01T00:00:00Z") -> dict[str, Any]:
    obj = host_object(
        name,
        admission={
            "generation": 1,
            "specHash": "x",
            "tier": tier,
            "request": {"cpu": cpu, "memory": "0", "nvidia.com/gpu": "0", "pods": 1},
        },
    )
    obj["metadata"]["creationTimestamp"] = created
    obj["status"]["conditions"] = [condition("Admitted", "True", "Admitted")]
    return obj


def pod(name: str, waiting: str = "", *, unschedulable: str = "", last: dict[str, Any] | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"phase": "Pending" if waiting or unschedulable else "Running", "conditions": []}
    if waiting:
        cs: dict[str, Any] = {"name": "app", "image": "registry.example/app:1", "restartCount": 7,
                              "state": {"waiting": {"reason": waiting, "message": "back-off. Try again"}}}  # fmt: skip
        if last:
            cs["lastState"] = {"terminated": last}
        status["containerStatuses"] = [cs]
    if unschedulable:
        status["conditions"].append(condition("PodScheduled", "False", "Unschedulable", unschedulable))
    return {"metadata": {"name": name, "namespace": "proj-a"}, "status": status}


def build(problems: set[State], message: str, phase: str, ready: int) -> Evidence:
    obj = host_object(phase=phase, readyReplicas=ready)
    conditions = obj["status"]["conditions"]
    if State.DELETING in problems:
        obj["metadata"]["deletionTimestamp"] = "2026-11-02T00:00:00Z"
    if State.INVALID_SPEC in problems:
        conditions.append(condition("Degraded", "True", "InvalidSpec", message))
    if State.MEMBER_REFUSED in problems:
        conditions.append(condition("MemberRefused", "True", "MemberRefused", message))
    if State.WAITING_FOR_QUOTA in problems:
        conditions.append(condition("Admitted", "False", "QuotaExceeded", message))
    else:
        conditions.append(condition("Admitted", "True", "Admitted", message))
    if State.STOPPED in problems:
        obj["spec"]["operations"]["stopped"] = True
    if State.PAUSED in problems:
        obj["spec"]["operations"]["paused"] = True
    if State.NO_CLUSTER_FITS in problems:
        conditions.append(condition("Scheduled", "False", "Unschedulable", message))
    pods = []
    waiting = (
        (State.IMAGE_PULL, "ImagePullBackOff"),
        (State.CONTAINER_CONFIG, "CreateContainerConfigError"),
        (State.CRASH_LOOP, "CrashLoopBackOff"),
    )
    for state, reason in waiting:
        if state in problems:
            pods.append(pod(f"web-{len(pods)}", reason, last={"exitCode": 1, "message": message}))
    if State.POD_UNSCHEDULABLE in problems:
        pods.append(pod("web-u", unschedulable=message or "no message"))
    if State.MEMBER_UNREACHABLE in problems:
        obj["status"]["shards"].append(
            {"cluster": "member-b", "replicas": 2, "unreachableSince": "2026-11-02T00:00:00Z"}
        )
    if State.CHANGE_WAITS in problems:
        conditions.append(condition("ChangePending", "True", "QuotaExceeded", message))
    if State.DEGRADED in problems:
        obj["status"]["shards"].append({"cluster": "member-a", "state": "Failed", "message": message})
    events = [{"type": "Warning", "reason": "BackOff", "message": message, "lastTimestamp": "2026-11-02T00:00:00Z"}]
    return Evidence(
        obj, pods={"member-a": pods}, events=events, grants={Tier.ONDEMAND: Allocation(4000, 8 * GI, 0, 10)}
    )


@settings(max_examples=400)
@given(
    problems=st.sets(st.sampled_from(PROBLEMS)),
    message=st.text(max_size=300),
    phase=st.sampled_from(["", "Running", "Progressing", "Succeeded", "Queued", "Unknown"]),
    ready=st.integers(0, 5),
)
def test_every_state_yields_one_sentence_naming_the_first_problem_in_precedence(problems, message, phase, ready):
    found = diagnose(build(problems, message, phase, ready))

    present = [s for s in PROBLEMS if s in problems]
    if present:
        assert found.state is present[0]
    elif phase == "Succeeded":
        assert found.state is State.SUCCEEDED
    elif phase == "Running" and ready >= 3:
        assert found.state is State.RUNNING
    else:
        assert found.state is State.PROGRESSING
    assert is_one_sentence(found.cause), found.cause
    assert is_one_sentence(found.next_step), found.next_step


@given(st.text(max_size=500))
def test_any_text_becomes_one_clause(text):
    said = clause(text)

    assert "\n" not in said and len(said) <= 160
    assert is_one_sentence("It says " + said + ".") or not said.strip()


def test_waiting_for_quota_names_the_resource_its_numbers_and_who_holds_it():
    me = host_object("new-job")
    me["status"]["conditions"] = [condition("Admitted", "False", "QuotaExceeded", "waiting for the OnDemand grant")]
    first_in_queue = host_object("older")
    first_in_queue["metadata"]["creationTimestamp"] = "2026-10-15T00:00:00Z"
    first_in_queue["status"]["conditions"] = [condition("Admitted", "False", "QuotaExceeded", "")]
    neighbours = [admitted_with("payments-api", "8"), admitted_with("search-indexer", "4"),
                  admitted_with("batch", "2", tier="Preemptible"), first_in_queue]  # fmt: skip
    evidence = Evidence(
        me,
        neighbours=neighbours,
        grants={Tier.ONDEMAND: Allocation(12000, 64 * GI, 0, 100)},
        asks=Allocation(2000, GI, 0, 1),
    )

    found = diagnose(evidence)

    assert found.state is State.WAITING_FOR_QUOTA and found.target is Target.QUOTA
    assert found.cause == (
        "Waiting for quota: OnDemand cpu 12 of 12 used by payments-api, search-indexer, this workload asks 2 "
        "(2nd in the OnDemand queue)."
    )


def test_no_cluster_fits_says_each_clusters_reason_short_with_the_pools_numbers():
    pools = {t: Resources(40_000, 160 * GI) for t in Tier}
    a = candidate("member-a", "zone-a", pools, {})
    b = candidate("member-b", "zone-b", pools, {Tier.RESERVED: Resources(40_000, 10 * GI)})
    request = PlacementRequest("PinApp", Tier.RESERVED, Resources(4000, GI), 1, zones=["zone-b"])
    try:
        place(request, [a, b])
        raise AssertionError("it fits")
    except NoFeasibleCluster as exc:
        rejected = exc.reasons
    obj = host_object(phase="Unschedulable")
    obj["spec"]["tier"] = "Reserved"
    obj["status"]["conditions"] = [condition("Admitted", "True"), condition("Scheduled", "False", "Unschedulable")]

    found = diagnose(Evidence(obj, candidates=[a, b], rejected=rejected))

    assert found.state is State.NO_CLUSTER_FITS and found.target is Target.SPEC
    assert found.cause == (
        "No cluster fits: member-a filtered by zone, member-b's Reserved pool is full: cpu 40 of 40 used, 4 needed."
    )


def test_a_crash_loop_says_the_exit_code_restarts_and_last_line():
    obj = host_object(phase="Progressing")
    obj["status"]["conditions"] = [condition("Admitted", "True")]
    crashing = pod(
        "web-abc",
        "CrashLoopBackOff",
        last={"exitCode": 1, "reason": "Error", "message": "starting\npanic: no DB_URL\n"},
    )

    found = diagnose(Evidence(obj, pods={"member-a": [crashing, pod("web-ok")]}))

    assert found.state is State.CRASH_LOOP and found.target is Target.LOGS
    assert (
        found.cause == 'Container app crash-loops on member-a: exit 1 after 7 restarts, last line "panic: no DB_URL".'
    )
    assert (found.subject.cluster, found.subject.pod, found.subject.container) == ("member-a", "web-abc", "app")


def test_an_image_that_cannot_be_pulled_names_the_image():
    obj = host_object(phase="Progressing")
    obj["status"]["conditions"] = [condition("Admitted", "True")]

    found = diagnose(Evidence(obj, pods={"member-a": [pod("web-1", "ImagePullBackOff"), pod("web-2", "ErrImagePull")]}))

    assert found.state is State.IMAGE_PULL
    assert found.cause.startswith(
        "Image registry.example/app:1 cannot be pulled on member-a (2 pods): ImagePullBackOff"
    )


def test_no_verdict_yet_waits_for_admission():
    found = diagnose(Evidence(host_object()))

    assert found.state is State.WAITING_FOR_ADMISSION and is_one_sentence(found.cause)


def candidate(
    name: str, zone: str, pools: dict[Tier, Resources], used: dict[Tier, Resources], **extra: Any
) -> ClusterCandidate:
    values = {
        "name": name, "region": "r", "zone": zone, "role": "member", "schedulable": True, "healthy": True,
        "hardware_families": frozenset({"m5"}), "labels": {}, "taints": [], "pool_capacity": pools,
        "tier_requested": used, "node_allocatable": Resources(16_000, 64 * GI), "node_count": 4,
    } | extra  # fmt: skip
    return ClusterCandidate(**values)


@settings(max_examples=300)
@given(
    schedulable=st.booleans(),
    healthy=st.booleans(),
    zone=st.sampled_from(["zone-a", "zone-b"]),
    families=st.sets(st.sampled_from(["m5", "p4"]), max_size=2),
    tainted=st.booleans(),
    label=st.booleans(),
    cpu=st.integers(0, 40_000),
    used=st.integers(0, 40_000),
    per_replica=st.integers(1, 32_000),
    replicas=st.integers(1, 6),
    tier=st.sampled_from(list(Tier)),
)
def test_every_reason_placement_gives_is_said_short(
    schedulable, healthy, zone, families, tainted, label, cpu, used, per_replica, replicas, tier
):
    pools = {t: Resources(cpu, 64 * GI) for t in Tier}
    taints = [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}] if tainted else []
    member = candidate(
        "member-a", zone, pools, {t: Resources(used, 0) for t in Tier}, schedulable=schedulable, healthy=healthy,
        hardware_families=frozenset(families), taints=taints, labels={"disk": "ssd"} if label else {},
    )  # fmt: skip
    request = PlacementRequest("PinApp", tier, Resources(per_replica, GI), replicas, zones=["zone-a"],
                               hardware_family="m5", node_selector={"disk": "ssd"})  # fmt: skip
    try:
        rejected = place(request, [member]).rejected
    except NoFeasibleCluster as exc:
        rejected = exc.reasons

    for reasons in rejected.values():
        for reason in reasons:
            said = short_reason("member-a", reason, member, tier)
            assert said != f"member-a {clause(reason)}", reason  # a form this module does not know
            assert "\n" not in said
