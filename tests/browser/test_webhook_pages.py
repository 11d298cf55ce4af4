"""The webhooks pages in Chromium, delivered by a real Celery worker to a receiver the test runs on 127.0.0.1: an owner
adds a hook (a bad URL refused beside the field, the secret shown once), sends a test, reads the delivery in the log
and removes the hook; a viewer finds no way to the pages and is refused at the URL. Screenshots:
webhooks-refused.png, webhooks-added.png, webhook-delivered.png, webhooks-removed.png, webhooks-viewer.png."""

from __future__ import annotations

import pytest

from devtools.waiting import wait_for
from tests.support.browser import GENEROUS_MS, signed_in
from tests.support.projects import (  # noqa: F401 - fixtures, used by name
    caches,
    developer,
    fast_passwords,
    owner,
    project,
    region,
    viewer,
)
from tests.support.provisioning import start_worker, stop_worker
from tests.support.webhooks import Receiver
from webhooks.models import Delivery, DeliveryState, Webhook

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def receiver():
    found = Receiver()
    yield found
    found.stop()


@pytest.fixture
def worker(tmp_path, settings):
    """The portal and the worker both allow a receiver on 127.0.0.1 (production refuses it)."""
    settings.WEBHOOK_ALLOW_PRIVATE = True
    log = tmp_path / "worker.log"
    proc = start_worker(log, WEBHOOK_ALLOW_PRIVATE="true")
    yield log
    stop_worker(proc)


def test_an_owner_adds_tests_reads_and_removes_a_webhook(
    project,  # noqa: F811
    owner,  # noqa: F811
    receiver,
    worker,
    page,
    live_server,
    screenshot_dir,
):
    page.set_default_timeout(GENEROUS_MS)
    signed_in(page, live_server.url, owner)
    page.goto(f"{live_server.url}/projects/ads/")
    page.click("[data-webhooks-link]")
    page.wait_for_url(f"{live_server.url}/projects/ads/webhooks/")

    page.fill("input[name=name]", "team")
    page.fill("input[name=url]", "ftp://127.0.0.1/hook")
    page.check("input[name=events][value='workload.failed']")
    page.click("button:has-text('Add webhook')")
    page.wait_for_selector("#id_url_error")
    page.screenshot(path=str(screenshot_dir / "webhooks-refused.png"), full_page=True)

    assert "An http:// or https:// URL with a host." in page.locator("#id_url_error").inner_text()
    assert page.input_value("input[name=name]") == "team"  # what was typed stays
    assert not Webhook.objects.exists()

    page.fill("input[name=url]", receiver.url)
    page.click("button:has-text('Add webhook')")
    page.wait_for_selector("[data-webhook-secret]")
    page.screenshot(path=str(screenshot_dir / "webhooks-added.png"), full_page=True)

    secret = Webhook.objects.get(name="team").secret
    assert secret in page.locator("[data-webhook-secret]").inner_text()
    assert "workload.failed" in page.locator("tr[data-webhook=team]").inner_text()

    page.click("tr[data-webhook=team] a:has-text('team')")
    page.click("button:has-text('Send a test event')")
    page.wait_for_selector("text=A test event was queued for team")
    wait_for(
        lambda: Delivery.objects.filter(webhook__name="team", state=DeliveryState.DELIVERED).exists(),
        timeout=180,
        what=f"the test delivery (worker log: {worker})",
    )
    page.reload()
    page.screenshot(path=str(screenshot_dir / "webhook-delivered.png"), full_page=True)

    row = page.locator("#deliveries tr[data-attempt='1']")
    assert "webhook.test" in row.inner_text() and "delivered" in row.inner_text() and "200" in row.inner_text()
    assert receiver.count() == 1 and b"webhook.test" in receiver.received[0].body
    assert secret not in page.content()  # shown once, on creation

    page.click("button:has-text('Remove')")
    page.click(".modal button:has-text('Confirm')")  # the portal's confirmation dialog (hx-confirm)
    page.wait_for_selector("text=Webhook team removed.")
    page.screenshot(path=str(screenshot_dir / "webhooks-removed.png"), full_page=True)

    assert page.url == f"{live_server.url}/projects/ads/webhooks/"
    assert page.locator("tr[data-webhook]").count() == 0
    assert page.locator("main#main").count() == 1  # the whole page replaced, not a page inside the page
    assert not Webhook.objects.exists()


def test_a_viewer_has_no_way_to_the_webhooks(project, viewer, page, live_server, screenshot_dir):  # noqa: F811
    page.set_default_timeout(GENEROUS_MS)
    signed_in(page, live_server.url, viewer)
    page.goto(f"{live_server.url}/projects/ads/")
    assert page.locator("[data-webhooks-link]").count() == 0

    answer = page.goto(f"{live_server.url}/projects/ads/webhooks/")
    page.screenshot(path=str(screenshot_dir / "webhooks-viewer.png"), full_page=True)

    assert answer is not None and answer.status == 403
    assert page.locator("input[name=url]").count() == 0
