"""Workloads persisted on the host are admitted, placed, sharded, propagated and aggregated back.

Run alone: .venv/bin/pytest tests/integration/federation -p no:django -p no:cacheprovider -o addopts="" \
    -p tests.harness.localcp
"""

from __future__ import annotations

import json

import pytest
import yaml
from kubernetes import client

from devtools.waiting import wait_for
from tests.integration.federation.conftest import (
    MEMBERS,
    condition,
    custom,
    get,
    kubectl,
    listed,
)
from workloads.core import GROUP, VERSION
from workloads.core.kinds import KINDS

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(300)]
IMAGE = "registry.local/search/web:1.0"
APP = {"name": "app", "image": IMAGE, "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}
JOB = {"name": "worker", "image": "registry.local/batch/worker:1", "resources": {"requests": {"cpu": "100m"}}}


def manifest(kind: str, name: str, namespace: str, **spec) -> dict:
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"project": namespace, "team": "team", "tier": "OnDemand", **spec},
    }


def pinapp(name: str, namespace: str, replicas: int = 4, image: str = IMAGE) -> dict:
    return manifest(
        "PinApp",
        name,
        namespace,
        replicas=replicas,
        zones=["local-1a", "local-1b"],
        template={"containers": [{**APP, "image": image}]},
    )


def running(api: client.ApiClient, namespace: str, workload: str) -> list[dict]:
    pods = client.CoreV1Api(api).list_namespaced_pod(namespace, label_selector=f"pincompute.io/workload={workload}")
    return [p for p in pods.items if p.status.phase == "Running"]


def host_ready(host: client.ApiClient, kind: str, namespace: str, name: str) -> dict | None:
    obj = get(host, kind, namespace, name)
    if obj and condition(obj, "Ready").get("status") == "True":
        return obj
    return None


def test_a_pinapp_applied_to_the_host_with_kubectl_runs_sharded_across_both_zones(
    federation, federation_clusters, forwarded_kubeconfig, project
):
    kubeconfig, _ = forwarded_kubeconfig
    ns = project()
    host = federation_clusters["host"]
    kubectl(kubeconfig, "host", "apply", "-f", "-", input=yaml.safe_dump(pinapp("web", ns)))

    obj = wait_for(lambda: host_ready(host, "PinApp", ns, "web"), 60, what="host PinApp Ready")

    status = obj["status"]
    assert condition(obj, "Admitted")["status"] == "True"
    assert condition(obj, "Scheduled")["status"] == "True"
    assert {(s["cluster"], s["zone"], s["replicas"]) for s in status["placement"]["clusters"]} == {
        ("member-a", "local-1a", 2),
        ("member-b", "local-1b", 2),
    }
    assert {row["cluster"]: row["readyReplicas"] for row in status["shards"]} == {"member-a": 2, "member-b": 2}
    assert status["readyReplicas"] == 4 and status["phase"] == "Running"
    assert status["currentRevision"].startswith("pinapp-web-")
    for member in MEMBERS:
        shard = get(federation_clusters[member], "PinApp", ns, "web")
        assert shard["metadata"]["labels"]["pincompute.io/federated"] == "true"
        assert shard["metadata"]["annotations"]["pincompute.io/cluster"] == member
        assert len(running(federation_clusters[member], ns, "web")) == 2
    assert not client.AppsV1Api(host).list_namespaced_deployment(ns).items  # never executed on the host
