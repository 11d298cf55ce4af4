"""Failover against the real stack: member-b's apiserver stops (its forwarder closes, so the federation loses it
while its pods keep running, as in a partition) and after the policy's grace the PinApp's replicas run on
member-a, never more than the count plus the surge; when member-b is back its stale shard and pods go."""

from __future__ import annotations

import threading

import pytest
from kubernetes import client

from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from pincompute.labels import FAILOVER_ANNOTATION
from tests.support.federation import condition, custom, get, pinapp

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(300)]


def running(api: client.ApiClient, namespace: str, name: str) -> int:
    pods = client.CoreV1Api(api).list_namespaced_pod(namespace, label_selector=f"pincompute.io/workload={name}")
    return sum(1 for p in pods.items if p.status.phase == "Running" and not p.metadata.deletion_timestamp)


def test_a_lost_members_replicas_run_elsewhere_within_the_surge_and_its_stale_shard_goes_on_return(
    federation, federation_clusters, forwarded_kubeconfig, project
):
    _, forwarder = forwarded_kubeconfig
    ns = project()
    host, a, b = (federation_clusters[n] for n in ("host", "member-a", "member-b"))
    body = pinapp(ns, "moving", replicas=4, failover={"afterSeconds": 2, "maxSurge": 2})
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", body)
    wait_for(lambda: running(a, ns, "moving") == 2 and running(b, ns, "moving") == 2, 90, what="2 + 2 Running")

    most, stop = [0], threading.Event()

    def watch_count() -> None:  # both members read directly: member-b's pods keep running behind the forwarder
        while not stop.is_set():
            most[0] = max(most[0], running(a, ns, "moving") + running(b, ns, "moving"))
            stop.wait(0.2)

    counter = threading.Thread(target=watch_count, daemon=True)
    counter.start()
    try:
        forwarder.stop()
        try:
            wait_for(lambda: running(a, ns, "moving") == 4, 120, what="member-b's replicas running on member-a")
            obj = get(host, "PinApp", ns, "moving")
            placed = [(r["cluster"], r["replicas"]) for r in obj["status"]["placement"]["clusters"]]
            assert placed == [("member-a", 4)]
            scheduled = condition(obj, "Scheduled")
            assert scheduled["reason"] == "FailedOver"
            assert "2 replica(s) from member-b to member-a" in scheduled["message"]
            assert "member-b unreachable since" in scheduled["message"]
            shard = get(a, "PinApp", ns, "moving")
            assert "from member-b" in shard["metadata"]["annotations"][FAILOVER_ANNOTATION]
        finally:
            forwarder.start()
        wait_for(lambda: get(b, "PinApp", ns, "moving") is None, 90, what="the stale shard on member-b removed")
        wait_for(lambda: running(b, ns, "moving") == 0, 90, what="member-b's stale pods gone")
        obj = wait_for(
            lambda: (o := get(host, "PinApp", ns, "moving"))
            and condition(o, "Scheduled")["reason"] == "Scheduled"
            and o,
            60,
            what="the failover settled",
        )
    finally:
        stop.set()
        counter.join()
    assert not obj["status"]["placement"].get("failover")
    assert running(a, ns, "moving") == 4
    assert most[0] <= 4 + 2  # never more than the count plus the surge
