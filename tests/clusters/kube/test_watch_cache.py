"""The watch cache against a real kube-apiserver: events, dropped connections, 410 relists, dead clusters.

Run: .venv/bin/pytest tests/clusters/kube -p no:django -p no:cacheprovider -o addopts="" \
     -p tests.harness.localcp   (PINCONSOLE_TEST_STATE_DIR=... reuses a running control plane)
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml
from kubernetes import client as k8s

from clusters.kube import CacheRegistry, CircuitOpen, ClientPool, ClusterTarget, WatchCache
from pincompute.kube import rawapi
from tests.support.watch import eventually, pod_manifest

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(120)]


def test_a_pod_created_patched_and_deleted_shows_in_the_cache(cache: WatchCache, core: k8s.CoreV1Api, namespace: str):
    core.create_namespaced_pod(namespace, pod_manifest("p1"))
    eventually(lambda: cache.get("pods", namespace, "p1"), what="pod visible")
    pod = cache.get("pods", namespace, "p1")
    assert "managedFields" not in pod["metadata"]
    eventually(lambda: cache.aggregates()["requests_by_namespace"].get(namespace), what="pod in aggregates")
    assert cache.aggregates()["requests_by_namespace"][namespace].cpu_m == 250

    core.patch_namespaced_pod(
        "p1", namespace, {"metadata": {"labels": {"stage": "two"}, "annotations": {"note": "hi"}}}
    )
    eventually(lambda: cache.list("pods", namespace, label_selector={"stage": "two"}), what="label change")
    assert cache.get("pods", namespace, "p1")["metadata"]["annotations"]["note"] == "hi"

    core.delete_namespaced_pod("p1", namespace, grace_period_seconds=0)
    eventually(lambda: cache.get("pods", namespace, "p1") is None, what="pod gone")
    assert namespace not in cache.aggregates()["requests_by_namespace"]
    assert cache.stats()["pods"].relists == 0


def test_a_killed_watch_connection_resumes_and_catches_up(cache: WatchCache, core: k8s.CoreV1Api, namespace: str):
    lists_before = cache.stats()["pods"].lists

    for i in range(3):
        cache.drop_connections("pods")
        core.create_namespaced_pod(namespace, pod_manifest(f"gap-{i}"))

    eventually(lambda: cache.count("pods", namespace) == 3, what="changes made across drops")
    stats = cache.stats()["pods"]
    assert stats.lists == lists_before and stats.relists == 0  # resumed from the resourceVersion


def wait_until_the_apiserver_forgets(pool: ClientPool, cluster: str, core: k8s.CoreV1Api, namespace: str) -> float:
    """Churn pods until a watch from rv=1 is really Gone, and return how long that took.

    A young apiserver answers an old resourceVersion by replaying its watch cache as ADDED events
    (etcd compaction doesn't matter: the cache serves watches); it only says 410 once the cache has
    evicted events, i.e. when it is full and its oldest event is older than 75 s.
    """
    core.create_namespaced_pod(namespace, pod_manifest("churn"))
    api, t0 = pool.api(cluster), time.monotonic()
    while time.monotonic() - t0 < 200:
        for i in range(20):
            core.patch_namespaced_pod("churn", namespace, {"metadata": {"annotations": {"i": str(i)}}})
        resp = rawapi.open_watch(api, "/api/v1/pods", "1", 1, 3)
        try:
            for _ in rawapi.iter_events(resp):
                pass
        except rawapi.WatchGone:
            return time.monotonic() - t0
        time.sleep(3)
    raise AssertionError("the apiserver still serves resourceVersion 1 after 200 s of churn")


@pytest.mark.timeout(300)
def test_a_too_old_resource_version_triggers_a_relist(
    cache: WatchCache, core: k8s.CoreV1Api, namespace: str, pool: ClientPool, member_target: ClusterTarget
):
    wait_until_the_apiserver_forgets(pool, member_target.name, core, namespace)
    lists = cache.stats()["pods"].lists

    cache.force_resource_version("pods", "1")

    # relists counts the decision, lists the completed LIST: wait for both (the LIST finishes a moment later)
    eventually(
        lambda: cache.stats()["pods"].relists >= 1 and cache.stats()["pods"].lists == lists + 1,
        timeout=10,
        what="410 -> relist",
    )
    core.create_namespaced_pod(namespace, pod_manifest("after-relist"))
    eventually(lambda: cache.get("pods", namespace, "after-relist"), what="watch after relist")
    assert cache.synced and "Gone" in (cache.stats()["pods"].last_error or "")


def dead_kubeconfig(tmp_path: Path, live: ClusterTarget) -> str:
    doc = yaml.safe_load(Path(live.kubeconfig_path or "").read_text())
    ctx = next(c for c in doc["contexts"] if c["name"] == live.context)
    for cluster in doc["clusters"]:
        if cluster["name"] == ctx["context"]["cluster"]:
            cluster["cluster"]["server"] = "https://127.0.0.1:1"
    path = tmp_path / "dead.kubeconfig"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def test_an_unreachable_cluster_is_reported_without_blocking_the_others(tmp_path: Path, member_target: ClusterTarget):
    dead = ClusterTarget("dead", dead_kubeconfig(tmp_path, member_target), member_target.context)
    registry = CacheRegistry(ClientPool())
    t0 = time.monotonic()
    registry.ensure([dead, member_target])
    try:
        assert time.monotonic() - t0 < 1.0  # start() never waits for a cluster
        assert registry.get(member_target.name).wait_synced(30)
        dead_cache = registry.get("dead")
        eventually(lambda: dead_cache.health().state == "open", timeout=15, what="breaker open")

        assert not dead_cache.synced
        assert "Connection" in (dead_cache.last_error or "") or "Circuit" in (dead_cache.last_error or "")
        assert dead_cache.health().last_error is not None
        with pytest.raises(CircuitOpen):
            registry.pool.probe("dead")
        assert registry.pool.probe(member_target.name).startswith("v1.")
        assert registry.get(member_target.name).synced
    finally:
        t1 = time.monotonic()
        registry.stop_all(timeout=5)
        assert time.monotonic() - t1 < 6
