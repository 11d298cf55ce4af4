"""The pages of issue 34's attention work in Chromium: a cluster edit refused with every problem at once and the
numbers of the member's real nodes (the local control plane's kwok nodes), the admin's dashboard with the clusters
needing attention and the queue, and a new user's first steps. Screenshots: cluster-edit-refused-pool.png,
cluster-edit-refused-attributes.png, dashboard-admin.png, dashboard-new-user.png."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from clusters import runtime
from clusters.models import Cluster
from projects.models import QuotaRequest
from tests.support.browser import signed_in
from tests.support.factories import make_quota
from tests.support.nodes import node_zones

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def registered(local_control_plane):
    zones = [f"--zone={c.name}={c.zone}" for c in local_control_plane.clusters]
    call_command("import_clusters", "--kubeconfig", str(local_control_plane.kubeconfig_path), *zones)
    assert node_zones("member-a") == {"local-1a"}  # the node cache has synced
    yield
    runtime.shutdown()


@pytest.mark.cluster
def test_a_refused_cluster_edit_shows_every_problem_with_the_nodes_numbers(
    registered, page, live_server, admin_user, user, screenshot_dir
):
    signed_in(page, live_server.url, admin_user)
    page.goto(f"{live_server.url}/clusters/member-a/")

    page.click("#pool-reserved button[title='Edit Reserved pool']")
    page.fill("#pool-reserved input[name=cpu]", "5000")
    page.fill("#pool-reserved input[name=memory]", "9000Gi")
    page.click("#pool-reserved button[type=submit]")
    page.wait_for_selector("#pool-reserved .invalid-feedback")
    errors = page.locator("#pool-reserved .invalid-feedback").all_inner_texts()
    page.screenshot(path=str(screenshot_dir / "cluster-edit-refused-pool.png"), full_page=True)

    assert len(errors) == 2
    assert "hold 1440 cpu; its pools would take 5000" in errors[0] and "at most 1440" in errors[0]
    assert "hold 5760Gi memory" in errors[1]

    page.click("#attributes button:has-text('Edit')")
    page.fill("#attributes input[name=zone]", "local-1q")
    page.fill("#attributes textarea[name=labels]", "tier=gold\nBad Key=x")
    page.fill("#attributes textarea[name=taints]", "dedicated=ml:Sometimes")
    page.click("#attributes button[type=submit]")
    page.wait_for_selector("#attributes .invalid-feedback")
    errors = page.locator("#attributes .invalid-feedback").all_inner_texts()
    page.screenshot(path=str(screenshot_dir / "cluster-edit-refused-attributes.png"), full_page=True)

    assert len(errors) == 3  # the zone against the nodes, the label and the taint: one submit
    assert any("labels say local-1a (20 nodes)" in e for e in errors)
    assert Cluster.objects.get(name="member-a").zone == "local-1a"

    Cluster.objects.filter(name="member-b").update(host_sync_error="MemberCluster member-b on host: 422 ...")
    quota = make_quota("ondemand", 2, project="ads")
    QuotaRequest.objects.create(project=quota.project, tier="ondemand", requested_by=user, previous={}, requested={})
    page.goto(f"{live_server.url}/")
    page.screenshot(path=str(screenshot_dir / "dashboard-admin.png"), full_page=True)

    assert "member-b" in page.locator("#cluster-attention").inner_text()
    assert "ads · ondemand" in page.locator("#approvals").inner_text()


def test_a_new_user_is_shown_the_first_steps(page, live_server, user, screenshot_dir):
    signed_in(page, live_server.url, user)

    page.goto(f"{live_server.url}/")
    page.screenshot(path=str(screenshot_dir / "dashboard-new-user.png"), full_page=True)

    steps = page.locator("#first-steps")
    assert steps.is_visible()
    page.click("#first-steps a:has-text('Open the tutorial')")
    page.wait_for_url(f"{live_server.url}/projects/tutorial/")
