"""The federation controller killed mid-propagation of 200 workloads converges after a restart: every host
workload has exactly its shards, nothing is duplicated, and shards whose host object went away while it
was down are removed."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from kubernetes import client

from devtools.operator_process import OperatorProcess
from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from tests.support.federation import MEMBERS, custom, listed

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(400)]
COUNT = 200
POD = {"name": "app", "image": "registry.local/crash/app:1", "resources": {"requests": {"cpu": "10m"}}}


def pinpod(name: str, namespace: str) -> dict:
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "PinPod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"project": namespace, "team": "team", "tier": "OnDemand", "containers": [POD]},
    }


def shards(clusters: dict, namespace: str) -> dict[str, set[str]]:
    return {m: {o["metadata"]["name"] for o in listed(clusters[m], "PinPod", namespace)} for m in MEMBERS}


def test_killed_mid_propagation_of_200_it_converges_with_no_duplicate_or_orphan_shard(
    federation_clusters, forwarded_kubeconfig, project, tmp_path
):
    kubeconfig, _ = forwarded_kubeconfig
    ns = project(cpu="64", memory="256Gi")
    host = federation_clusters["host"]
    lease = f"crash-{uuid.uuid4().hex[:8]}"
    first = OperatorProcess(kubeconfig, tmp_path, "fed-first", lease, federation=True).start()
    wait_for(lambda: first.metrics().get("leading") == 1.0, 60, what="first operator leading")

    def create(index: int) -> None:
        custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinpods", pinpod(f"w{index:03d}", ns))

    with ThreadPoolExecutor(8) as pool:
        created = pool.map(create, range(COUNT))
        propagated = wait_for(
            lambda: (n := sum(len(s) for s in shards(federation_clusters, ns).values())) >= 10 and n,
            60,
            interval=0.02,
            what="propagation under way",
        )
        first.kill()
        list(created)
    at_kill = sum(len(s) for s in shards(federation_clusters, ns).values())
    assert propagated < COUNT and at_kill < COUNT, "the kill came after propagation had finished"

    # While it is down: five objects are force-deleted past the finalizer (their shards become orphans).
    gone = []
    for name in sorted(set().union(*shards(federation_clusters, ns).values()))[:5]:
        custom(host).patch_namespaced_custom_object(
            GROUP, VERSION, ns, "pinpods", name, {"metadata": {"finalizers": []}}
        )
        custom(host).delete_namespaced_custom_object(GROUP, VERSION, ns, "pinpods", name)
        gone.append(name)

    second = OperatorProcess(kubeconfig, tmp_path, "fed-second", lease, federation=True).start()
    try:
        wait_for(lambda: second.metrics().get("leading") == 1.0, 60, what="second operator leading")
        expected = COUNT - len(gone)

        def converged():
            placed = {}
            for obj in listed(host, "PinPod", ns):
                rows = ((obj.get("status") or {}).get("placement") or {}).get("clusters") or []
                ready = [s for s in (obj.get("status") or {}).get("shards") or [] if s.get("state") == "Ready"]
                if len(rows) != 1 or len(ready) != 1:
                    return None
                placed[obj["metadata"]["name"]] = rows[0]["cluster"]
            return placed if len(placed) == expected else None

        placed = wait_for(converged, 180, interval=1, what="every host workload placed, propagated and Ready")
        on_members = shards(federation_clusters, ns)
        for member in MEMBERS:
            assert on_members[member] == {n for n, c in placed.items() if c == member}  # no orphan, no stray
        assert not set(gone) & set().union(*on_members.values())

        def pods() -> list[str]:
            return [
                p.metadata.name
                for m in MEMBERS
                for p in client.CoreV1Api(federation_clusters[m]).list_namespaced_pod(ns).items
                if not p.metadata.deletion_timestamp
            ]

        # a pruned shard's pod goes with it through the members' garbage collector, a moment after the shard
        def at_most_expected() -> list[str] | None:
            found = pods()
            return found if len(found) <= expected else None

        settled = wait_for(at_most_expected, 60, what="the pruned shards' pods gone")
        assert len(settled) == len(set(settled)) == expected  # one pod per workload, none twice
        time.sleep(1)
        assert second.proc is not None and second.proc.poll() is None
    finally:
        assert second.terminate() == 0, second.log()
