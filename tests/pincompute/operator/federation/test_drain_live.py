"""A drain against the real stack: member-b's MemberCluster is drained (what the portal's cordon/drain writes there)
while a PinApp runs 2 + 2 over both members. Its replicas move to member-a, and member-b's old shard goes only once
member-a runs them all (never more than the count plus the surge); a new workload is not placed on the cordoned
member; uncordon returns it to service. A CronJob (a run-to-finish kind) stays on a drained member until the
drain's jobs deadline, and moves whole to the other member then; a job that finished there is not run again."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from kubernetes import client

from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from pincompute.kinds import KINDS
from pincompute.status import rfc3339
from tests.support.federation import condition, custom, get, pinapp

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(300)]


def running(api: client.ApiClient, namespace: str, name: str) -> int:
    pods = client.CoreV1Api(api).list_namespaced_pod(namespace, label_selector=f"pincompute.io/workload={name}")
    return sum(1 for p in pods.items if p.status.phase == "Running" and not p.metadata.deletion_timestamp)


def test_a_drained_member_hands_its_replicas_over_before_its_shard_goes(federation, federation_clusters, project):
    ns = project()
    host, a, b = (federation_clusters[n] for n in ("host", "member-a", "member-b"))
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", pinapp(ns, "drained", replicas=4))
    wait_for(lambda: running(a, ns, "drained") == 2 and running(b, ns, "drained") == 2, 90, what="2 + 2 Running")

    at_removal: list[int] = []
    most, stop = [0], threading.Event()

    def watch() -> None:
        while not stop.is_set():
            on_a, on_b = running(a, ns, "drained"), running(b, ns, "drained")
            most[0] = max(most[0], on_a + on_b)
            if not at_removal and get(b, "PinApp", ns, "drained") is None:
                # on_a was read before the shard check; a only grows during a drain, so read it again at once
                at_removal.append(max(on_a, running(a, ns, "drained")))
            stop.wait(0.2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        drain(host, "member-b", 600)
        wait_for(lambda: get(b, "PinApp", ns, "drained") is None, 120, what="member-b's shard removed")
        wait_for(lambda: running(b, ns, "drained") == 0, 60, what="member-b's pods gone")
        obj = get(host, "PinApp", ns, "drained")
        assert [(r["cluster"], r["replicas"]) for r in obj["status"]["placement"]["clusters"]] == [("member-a", 4)]
        wait_for(lambda: at_removal, 30, what="the watcher seeing member-b's shard gone")  # it polls every 0.2 s
        assert at_removal[0] >= 4  # member-a ran every replica before member-b's shard went
        assert running(a, ns, "drained") == 4

        fresh = pinapp(ns, "fresh", replicas=2, zones=["local-1a", "local-1b"])
        custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", fresh)
        refused = wait_for(
            lambda: (o := get(host, "PinApp", ns, "fresh"))
            and condition(o, "Scheduled").get("status") == "False"
            and o,
            60,
            what="the new PinApp not placed on the cordoned member",
        )
        assert "not schedulable" in condition(refused, "Scheduled")["message"]
    finally:
        stop.set()
        watcher.join()
        set_member(host, "member-b", {"cordoned": False, "drain": None})
    wait_for(
        lambda: condition(get(host, "PinApp", ns, "fresh"), "Ready").get("status") == "True",
        90,
        what="uncordoned: the new PinApp placed on both members",
    )
    assert most[0] <= 4 + 4  # the default surge, 100%


def placed_on(host: client.ApiClient, kind: str, ns: str, name: str) -> list[str]:
    obj = get(host, kind, ns, name) or {}
    return [c["cluster"] for c in (((obj.get("status") or {}).get("placement") or {}).get("clusters") or [])]


JOB = {"name": "worker", "image": "registry.local/batch/worker:1", "resources": {"requests": {"cpu": "100m"}}}


def submit_batch(host: client.ApiClient, ns: str, kind: str, name: str, **spec: object) -> None:
    """Create a run-to-finish workload of ``kind`` on the host."""
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, KINDS[kind].plural, batch(ns, kind, name, **spec))


def batch(ns: str, kind: str, name: str, **spec: object) -> dict:
    base = {"project": ns, "team": "team", "tier": "OnDemand", "containers": [JOB]}
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": kind, "metadata": {"name": name, "namespace": ns},
            "spec": {**base, **spec}}  # fmt: skip


def drain(host: client.ApiClient, member: str, seconds: float) -> datetime:
    """Cordon and drain ``member``, jobs allowed ``seconds``; the jobs deadline."""
    now = datetime.now(UTC)
    deadline = (now + timedelta(seconds=seconds)).replace(microsecond=0)  # as written: RFC 3339 to the second
    set_member(
        host, member, {"cordoned": True, "drain": {"requestedAt": rfc3339(now), "jobsDeadline": rfc3339(deadline)}}
    )
    return deadline


def set_member(host: client.ApiClient, member: str, spec: dict) -> None:
    custom(host).patch_cluster_custom_object(GROUP, VERSION, "memberclusters", member, {"spec": spec})


def test_a_cronjob_stays_on_a_drained_member_until_the_jobs_deadline_then_moves(
    federation, federation_clusters, project
):
    ns = project()
    host = federation_clusters["host"]
    kind = "PinterestCronJob"
    submit_batch(host, ns, kind, "nightly", schedule="*/5 * * * *")
    (source,) = wait_for(lambda: placed_on(host, kind, ns, "nightly"), 60, what="the CronJob placed")
    target = next(m for m in ("member-a", "member-b") if m != source)
    members = {m: federation_clusters[m] for m in (source, target)}
    wait_for(lambda: get(members[source], kind, ns, "nightly"), 60, what=f"its shard on {source}")
    deadline = drain(host, source, 15)
    try:
        while datetime.now(UTC) < deadline - timedelta(seconds=3):  # its runs may finish there until the deadline
            assert placed_on(host, kind, ns, "nightly") == [source]
            assert get(members[source], kind, ns, "nightly") is not None
            assert get(members[target], kind, ns, "nightly") is None
            threading.Event().wait(0.5)
        wait_for(lambda: placed_on(host, kind, ns, "nightly") == [target], 60, what=f"moved to {target}")
        assert datetime.now(UTC) >= deadline
        wait_for(lambda: get(members[target], kind, ns, "nightly"), 60, what=f"its shard on {target}")
        wait_for(lambda: get(members[source], kind, ns, "nightly") is None, 60, what=f"{source}'s shard removed")
        said = client.CoreV1Api(host).list_namespaced_event(ns, field_selector="involvedObject.name=nightly").items
        assert any(e.reason == "FailedOver" and f"{source} is drained" in e.message for e in said)
    finally:
        set_member(host, source, {"cordoned": False, "drain": None})


def test_a_job_that_finished_on_a_drained_member_is_not_run_again_at_the_deadline(
    federation, federation_clusters, project
):
    ns = project()
    host = federation_clusters["host"]
    kind = "PinterestJobSet"
    submit_batch(host, ns, kind, "once", shards=1, parallelism=1)
    wait_for(
        lambda: ((get(host, kind, ns, "once") or {}).get("status") or {}).get("phase") == "Succeeded",
        90,
        what="the JobSet Succeeded",
    )
    (source,) = placed_on(host, kind, ns, "once")
    target = next(m for m in ("member-a", "member-b") if m != source)
    deadline = drain(host, source, 3)
    try:
        threading.Event().wait((deadline - datetime.now(UTC)).total_seconds() + 5)  # the reconcile at the deadline
        assert placed_on(host, kind, ns, "once") == [source]
        assert get(federation_clusters[target], kind, ns, "once") is None
        assert not client.BatchV1Api(federation_clusters[target]).list_namespaced_job(ns).items
        assert (get(host, kind, ns, "once")["status"] or {}).get("phase") == "Succeeded"
    finally:
        set_member(host, source, {"cordoned": False, "drain": None})


def hpa_bounds(api: client.ApiClient, ns: str, name: str) -> list[tuple[int, int]]:
    hpas = client.AutoscalingV2Api(api).list_namespaced_horizontal_pod_autoscaler(ns).items
    return [(h.spec.min_replicas, h.spec.max_replicas) for h in hpas if h.metadata.name.startswith(f"{name}-")]


def test_a_scaler_follows_its_pinapp_off_a_drained_member_with_its_whole_bounds(
    federation, federation_clusters, project
):
    """The scaler's shards follow the PinApp's placement at once (nothing requeued them before the resync), and the
    member that took the drained zone over gets the scaler's whole floor and ceiling, not its zone's half: its HPA
    then raises the Deployment (whose replicas are the HPA's) to the floor, so the handover completes."""
    ns = project()
    host, a, b = (federation_clusters[n] for n in ("host", "member-a", "member-b"))
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", pinapp(ns, "scaled", replicas=2))
    spec = {"project": ns, "team": "team", "tier": "OnDemand", "targetRef": {"name": "scaled"}, "minReplicas": 2,
            "maxReplicas": 6, "metrics": [{"type": "CPU", "targetUtilization": 70}]}  # fmt: skip
    scaler = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "PinScaler", "metadata": {"name": "scaler", "namespace": ns},
              "spec": spec}  # fmt: skip
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinscalers", scaler)
    wait_for(lambda: hpa_bounds(a, ns, "scaler") == [(1, 3)] and hpa_bounds(b, ns, "scaler") == [(1, 3)], 90,
             what="one HPA per zone shard, each with half the bounds")  # fmt: skip
    wait_for(lambda: running(a, ns, "scaled") == 1 and running(b, ns, "scaled") == 1, 90, what="1 + 1 Running")
    try:
        drain(host, "member-b", 600)
        wait_for(lambda: hpa_bounds(a, ns, "scaler") == [(2, 6)], 60, what="member-a's HPA with the whole bounds")
        wait_for(lambda: get(b, "PinScaler", ns, "scaler") is None, 30, what="member-b's scaler shard removed")
        wait_for(lambda: running(a, ns, "scaled") == 2, 90, what="member-a's HPA raising it to the floor")
        wait_for(lambda: get(b, "PinApp", ns, "scaled") is None, 60, what="member-b's PinApp shard removed")
    finally:
        set_member(host, "member-b", {"cordoned": False, "drain": None})
