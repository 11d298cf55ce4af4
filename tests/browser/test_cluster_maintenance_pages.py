# ruff: noqa: F811 - fixtures imported from other modules are named as parameters
"""The admin's cluster page in Chromium against a real member apiserver: the capacity forecast's lines once there are
hours of samples, and a node's Drain button (confirmed in the portal's dialog) with its result sentence: one pod
evicted, one kept by its disruption budget. Screenshots: cluster-forecast.png, cluster-node-drained.png."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from kubernetes import client as k8s

from devtools.waiting import wait_for
from tests.support.browser import GENEROUS_MS, signed_in
from tests.support.node_drain import member, node_with_pods  # noqa: F401
from tests.support.provisioning import register  # noqa: F401
from usage.models import CapacitySample, Resolution

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
]


def seed_growing_reserved_cpu(cluster: str) -> None:
    """Four hours of Reserved CPU samples on ``cluster``: one core more allocated each hour, of ten (as the usage
    sampler writes them: a minute's core-milliseconds)."""
    hour = timezone.now().replace(minute=0, second=0, microsecond=0)
    for back, cores in ((4, 2), (3, 3), (2, 4), (1, 5)):
        CapacitySample.objects.create(resolution=Resolution.MINUTE, start=hour - timedelta(hours=back),
                                      cluster=cluster, tier="reserved", cpu_capacity=10 * 1000 * 60,
                                      cpu_allocated=cores * 1000 * 60, seconds=60)  # fmt: skip


def test_the_forecast_and_a_node_drain_on_the_cluster_page(
    member: Any,
    node_with_pods: tuple[str, str],
    member_api_clients: dict[str, k8s.ApiClient],
    admin_user: Any,
    page: Any,
    live_server: Any,
    screenshot_dir: Any,
) -> None:
    node, ns = node_with_pods
    seed_growing_reserved_cpu(member.name)
    page.set_default_timeout(GENEROUS_MS)
    signed_in(page, live_server.url, admin_user)
    url = f"{live_server.url}/clusters/{member.name}/"

    def node_row() -> bool:  # the node table is read from the watch cache, which syncs after registration
        page.goto(url)
        return page.locator(f"tr:has(code:text-is('{node}'))").count() == 1

    wait_for(node_row, 180, what=f"{node} in the page's node table")
    page.wait_for_selector("#capacity-forecast")
    page.locator("#capacity-history").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "cluster-forecast.png"), full_page=True)

    assert "Reserved pool CPU: full in about 0.2 days at this rate." in page.locator("#capacity-forecast").inner_text()

    page.locator(f"tr:has(code:text-is('{node}')) button:has-text('Drain')").click()
    page.click(".modal button:has-text('Confirm')")  # the portal's confirmation dialog (hx-confirm)
    said = f"Drained node {node}: 1 pod(s) evicted; 1 kept by a disruption budget ({ns}/guarded)."
    page.wait_for_selector(f"text={said}")
    page.screenshot(path=str(screenshot_dir / "cluster-node-drained.png"), full_page=True)

    assert k8s.CoreV1Api(member_api_clients["member-a"]).read_node(node).spec.unschedulable is True
