"""A drain against the real stack: member-b's MemberCluster is drained (what the portal's cordon/drain writes there)
while a PinApp runs 2 + 2 over both members. Its replicas move to member-a, and member-b's old shard goes only once
member-a runs them all (never more than the count plus the surge); a new workload is not placed on the cordoned
member; uncordon returns it to service."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from kubernetes import client

from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from pincompute.status import rfc3339
from tests.support.federation import condition, custom, get, pinapp

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(300)]


def running(api: client.ApiClient, namespace: str, name: str) -> int:
    pods = client.CoreV1Api(api).list_namespaced_pod(namespace, label_selector=f"pincompute.io/workload={name}")
    return sum(1 for p in pods.items if p.status.phase == "Running" and not p.metadata.deletion_timestamp)


def set_member_b(host: client.ApiClient, spec: dict) -> None:
    custom(host).patch_cluster_custom_object(GROUP, VERSION, "memberclusters", "member-b", {"spec": spec})


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
    now = datetime.now(UTC)
    try:
        set_member_b(
            host,
            {
                "cordoned": True,
                "drain": {"requestedAt": rfc3339(now), "jobsDeadline": rfc3339(now + timedelta(minutes=10))},
            },
        )
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
        set_member_b(host, {"cordoned": False, "drain": None})
    wait_for(
        lambda: condition(get(host, "PinApp", ns, "fresh"), "Ready").get("status") == "True",
        90,
        what="uncordoned: the new PinApp placed on both members",
    )
    assert most[0] <= 4 + 4  # the default surge, 100%
