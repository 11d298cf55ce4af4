# ruff: noqa: F811 - fixtures imported from tests/support are named as parameters
"""The bell in a real browser over the real ASGI portal: a notification made elsewhere (a quota request by another
user) raises the approver's count on an open page without a reload; mark all read brings it back to nothing."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import expect

from projects.grants import QuotaInput
from projects.quota import change_quota
from tests.support.browser import signed_in
from tests.support.projects import (  # noqa: F401 - fixtures, used by name
    caches,
    developer,
    fast_passwords,
    owner,
    project,
    region,
    viewer,
)
from tests.support.sdk import asgi_portal  # noqa: F401 - fixture, used by name

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_the_bell_counts_a_new_notification_live(page, asgi_portal, project, owner, admin_user):
    base = asgi_portal.url
    signed_in(page, base, admin_user)
    page.goto(f"{base}/projects/")
    bell = page.locator("#nav-notifications")
    expect(bell).to_have_text("")
    expect(page.locator("[data-notifications-ws]")).to_have_attribute("data-unread", "0", timeout=30_000)  # connected

    # commits; from a thread of its own, as a request's view runs (Playwright's loop holds this one)
    ask = QuotaInput(cpu="60", memory="32Gi", pods="50")
    with ThreadPoolExecutor(1) as pool:
        pool.submit(change_quota, project, "reserved", ask, actor=owner).result()

    expect(bell).to_have_text("1", timeout=30_000)
    page.click("[data-notifications-ws]")
    page.wait_for_url(f"{base}/notifications/")
    expect(page.locator("#notifications")).to_contain_text("ads asks for more Reserved quota")
    page.click("button:has-text('Mark all read')")
    expect(bell).to_have_text("", timeout=30_000)
