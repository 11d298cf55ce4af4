"""Inline htmx editing in a real browser: refusals appear in place, fixes save, the page stays intact."""

import pytest

from base.models import AuditEvent
from clusters.models import ClusterPool
from tests.support.factories import make_cluster, make_pool, make_quota

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def signed_in_admin(page, live_server, admin_user):
    admin_user.set_password("pw-ops-Secret!")
    admin_user.save()
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", "ops")
    page.fill("input[name=password]", "pw-ops-Secret!")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    return page


def test_pool_shrink_is_refused_inline_then_a_valid_value_saves(
    signed_in_admin, live_server, screenshot_dir, monkeypatch
):
    page = signed_in_admin
    monkeypatch.setattr("clusters.runtime.member_caches", lambda: {})
    cluster = make_cluster("edge-1")  # a schedulable member: its pool is part of the region's capacity
    make_pool(cluster, "reserved", 100, 400)
    make_quota("reserved", 48)
    page.goto(f"{live_server.url}/clusters/edge-1/")

    page.click("#pool-reserved button[title='Edit Reserved pool']")
    page.fill("#pool-reserved input[name=cpu]", "10")
    page.click("#pool-reserved button[type=submit]")
    error = page.wait_for_selector("#pool-reserved .invalid-feedback")

    assert "38 below the 48 already granted" in error.inner_text()
    assert page.locator("h1.page-title").is_visible()  # the page is intact around the swapped row
    page.screenshot(path=str(screenshot_dir / "pool-shrink-refused.png"))
    assert ClusterPool.objects.get(cluster=cluster, kind="reserved").cpu_milli == 100_000

    page.fill("#pool-reserved input[name=cpu]", "64")
    page.click("#pool-reserved button[type=submit]")
    page.wait_for_selector("#pool-reserved button[title='Edit Reserved pool']")

    assert ClusterPool.objects.get(cluster=cluster, kind="reserved").cpu_milli == 64_000
    assert AuditEvent.objects.filter(action="cluster.pool.update", cluster="edge-1").count() == 1


def test_attribute_edit_shows_label_errors_inline(signed_in_admin, live_server):
    page = signed_in_admin
    make_cluster("edge-2", role="host")
    page.goto(f"{live_server.url}/clusters/edge-2/")

    page.click("#attributes button:has-text('Edit')")
    page.fill("#attributes textarea[name=labels]", "tier=gold\nBad Key=x")
    page.click("#attributes button[type=submit]")
    error = page.wait_for_selector("#attributes .invalid-feedback")

    assert "'Bad Key' is not a valid label key" in error.inner_text()
    page.fill("#attributes textarea[name=labels]", "tier=gold")
    page.click("#attributes button[type=submit]")
    page.wait_for_selector("#attributes button:has-text('Edit')")
    assert "tier=gold" in page.inner_text("#attributes")
