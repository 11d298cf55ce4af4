"""A member-a node with two pods of a fresh namespace on it, for the node drain's live tests (the service, API and page:
tests/clusters/test_node_drain_live.py; the CLI: tests/sdk/test_cli_node_drain_live.py)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s

from devtools.waiting import wait_for
from tests.support.watch import pod_manifest


@pytest.fixture
def member(register: Any) -> Any:
    return register("member-a")


@pytest.fixture
def node_with_pods(member_api_clients: dict[str, k8s.ApiClient]) -> Iterator[tuple[str, str]]:
    """An emptiest node of member-a with two pods of a fresh namespace on it: ``free`` and ``guarded`` (a budget of
    minAvailable 1 over it alone). The node is uncordoned and the namespace removed afterwards."""
    api = member_api_clients["member-a"]
    core, policy = k8s.CoreV1Api(api), k8s.PolicyV1Api(api)
    nodes = [n.metadata.name for n in core.list_node().items if not n.spec.unschedulable]
    on = {n: 0 for n in nodes}
    for pod in core.list_pod_for_all_namespaces().items:
        if pod.spec.node_name in on:
            on[pod.spec.node_name] += 1
    node = min(sorted(on), key=on.__getitem__)
    ns = f"drain-{uuid.uuid4().hex[:6]}"
    core.create_namespace({"metadata": {"name": ns}})
    try:
        for name in ("free", "guarded"):
            pod = pod_manifest(name, {"app": name})
            pod["spec"]["nodeName"] = node  # type: ignore[index]
            core.create_namespaced_pod(ns, pod)
        budget = {
            "metadata": {"name": "guard"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}},
        }
        policy.create_namespaced_pod_disruption_budget(ns, budget)
        wait_for(
            lambda: {p.metadata.name: p.status.phase for p in core.list_namespaced_pod(ns).items}
            == {"free": "Running", "guarded": "Running"},
            90,
            what="both pods Running",
        )
        yield node, ns
    finally:
        core.patch_node(node, {"spec": {"unschedulable": False}})
        core.delete_namespace(ns)
