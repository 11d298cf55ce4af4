# ruff: noqa: F811 - fixtures imported from other modules are named as parameters
"""A node's drain against a real member apiserver, as ``kubectl drain`` does it: the node is cordoned, a pod on it is
evicted through the Eviction API, a pod a PodDisruptionBudget protects is refused (the apiserver's 429, reported and
not forced), the drain is audited with what it did; the page and the API answer the same; an unknown node is a 404
and anyone but a platform admin gets 403. (The CLI: tests/sdk/test_cli_node_drain_live.py; DaemonSet and mirror pods are
kept by ``why_drain_keeps``, pinned in tests/clusters/test_maintenance.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s

from base.models import AuditEvent
from clusters import maintenance
from devtools.waiting import wait_for
from tests.support.node_drain import member, node_with_pods  # noqa: F401
from tests.support.provisioning import register  # noqa: F401

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]


def test_a_drain_cordons_evicts_and_reports_what_a_budget_kept(
    member: Any, node_with_pods: tuple[str, str], member_api_clients: dict[str, k8s.ApiClient], admin_user: Any
) -> None:
    node, ns = node_with_pods
    core = k8s.CoreV1Api(member_api_clients["member-a"])

    result = maintenance.drain_node(member.pk, node, actor=admin_user)

    assert core.read_node(node).spec.unschedulable is True
    assert f"{ns}/free" in result.evicted and f"{ns}/guarded" not in result.evicted
    assert "disruption budget" in result.refused[f"{ns}/guarded"]
    still = {p.metadata.name: p.metadata.deletion_timestamp for p in core.list_namespaced_pod(ns).items}
    assert still.get("guarded") is None and ("free" not in still or still["free"] is not None)
    wait_for(lambda: "free" not in {p.metadata.name for p in core.list_namespaced_pod(ns).items}, 60, what="evicted")
    [event] = AuditEvent.objects.filter(action="node.drain", target_name=node)
    assert event.actor == admin_user and event.cluster == "member-a"
    assert f"{ns}/free" in event.after["evicted"] and f"{ns}/guarded" in event.after["refused"]


def test_the_api_and_the_page_drain_for_admins_only_and_an_unknown_node_is_404(
    member: Any, node_with_pods: tuple[str, str], api_client: Any, client: Any, admin_user: Any, user: Any
) -> None:
    node, ns = node_with_pods
    path = f"/api/v1/clusters/{member.name}/nodes/drain/"
    api_client.force_authenticate(user)
    assert api_client.post(path, {"node": node}, format="json").status_code == 403
    api_client.force_authenticate(admin_user)
    missing = api_client.post(path, {"node": "no-such-node"}, format="json")
    assert missing.status_code == 404 and "has no node no-such-node" in missing.json()["error"]["message"]

    done = api_client.post(path, {"node": node}, format="json")
    assert done.status_code == 200, done.content
    body = done.json()
    assert body["unschedulable"] is True and f"{ns}/free" in body["evicted"] and f"{ns}/guarded" in body["refused"]

    client.force_login(user)
    assert client.post(f"/clusters/{member.name}/nodes/{node}/drain/").status_code == 403
    client.force_login(admin_user)
    page = client.post(f"/clusters/{member.name}/nodes/{node}/drain/", follow=True)
    assert page.status_code == 200
    assert (
        f"Drained node {node}: 0 pod(s) evicted; 1 kept by a disruption budget ({ns}/guarded)" in page.content.decode()
    )
    assert AuditEvent.objects.filter(action="node.drain", target_name=node).count() == 2
