"""Fixtures for watch-cache tests against the real local control plane (load -p tests.harness.localcp)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator

import pytest
from kubernetes import client as k8s
from kubernetes.client.exceptions import ApiException

from clusters.kube import ClientPool, ClusterTarget, WatchCache


@pytest.fixture(scope="session")
def member_target(local_control_plane) -> ClusterTarget:
    member = next(c for c in local_control_plane.clusters if c.role == "member")
    return ClusterTarget(member.name, str(local_control_plane.kubeconfig_path), member.context)


@pytest.fixture
def pool(member_target: ClusterTarget) -> Iterator[ClientPool]:
    pool = ClientPool([member_target])
    yield pool
    pool.close()


@pytest.fixture
def core(pool: ClientPool, member_target: ClusterTarget) -> k8s.CoreV1Api:
    """Writes go through the same per-cluster client; the cache is what is under test."""
    return k8s.CoreV1Api(pool.api(member_target.name))


@pytest.fixture
def namespace(core: k8s.CoreV1Api) -> Iterator[str]:
    name = f"kube-it-{uuid.uuid4().hex[:8]}"
    core.create_namespace({"metadata": {"name": name}})
    yield name
    try:
        core.delete_namespace(name)
    except ApiException as exc:
        if exc.status != 404:
            raise


@pytest.fixture
def cache(pool: ClientPool, member_target: ClusterTarget) -> Iterator[WatchCache]:
    cache = WatchCache(pool, member_target.name, watch_timeout=60)
    cache.start()
    assert cache.wait_synced(30), cache.last_error
    yield cache
    assert cache.stop(timeout=5), "watch threads did not stop promptly"


def eventually(check: Callable[[], object], timeout: float = 5.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout}s")
        time.sleep(0.05)


def pod_manifest(name: str, labels: dict[str, str] | None = None) -> dict[str, object]:
    return {
        "metadata": {"name": name, "labels": labels or {"app": "it"}},
        "spec": {
            "containers": [
                {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}
            ],
            "tolerations": [{"key": "kwok.x-k8s.io/node", "operator": "Exists", "effect": "NoSchedule"}],
        },
    }
