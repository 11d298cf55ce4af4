# ruff: noqa: F811 - fixtures imported from the page tests are named as parameters
"""The workload list and detail pages in a real browser: the list polls and filters through htmx, the detail
page shows shards, pods, timeline, revisions and the spec; a confirmed action is written and answered in place,
a stale one is refused inline. The host's and the members' caches are filled by hand (the live server runs in
this process), the host's apiserver is the page tests' fake."""

import pytest

from tests.support.fake_host import fake_host, web  # noqa: F401
from tests.support.projects import (  # noqa: F401
    caches,
    developer,
    fast_passwords,
    other_project,
    owner,
    project,
    region,
    viewer,
)

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def signed_in(page, live_server, developer):
    developer.set_password("pw-devi-Secret!")
    developer.save()
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", "devi")
    page.fill("input[name=password]", "pw-devi-Secret!")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    return page


def confirm(page):
    """Answer the confirmation modal once it is shown (its confirm button has the focus then)."""
    page.wait_for_function("() => document.activeElement?.closest('#confirm-modal .modal-footer') != null")
    page.click("#confirm-modal .modal-footer .btn:not([data-bs-dismiss])")
    page.wait_for_selector("#confirm-modal", state="hidden")


def test_the_list_filters_in_place_and_the_detail_page_pauses_after_a_confirmation(
    signed_in, live_server, web, screenshot_dir
):
    page = signed_in
    page.goto(f"{live_server.url}/workloads/")
    page.wait_for_selector("tr[data-workload='ads/PinApp/web']")
    page.screenshot(path=str(screenshot_dir / "workloads-list.png"), full_page=True)

    page.select_option("#f-status", "waiting")
    page.wait_for_selector("tr[data-workload='ads/PinApp/web']", state="detached")
    assert page.locator("tr[data-workload='ads/PinApp/waiting']").is_visible()
    assert "status=waiting" in page.url

    page.goto(f"{live_server.url}/workloads/ads/PinApp/web/")
    page.wait_for_selector("#workload-status [data-shard='member-b']")
    page.screenshot(path=str(screenshot_dir / "workload-detail.png"), full_page=True)

    page.click("#actions button[data-op='pause']")
    confirm(page)
    page.wait_for_selector("#actions .alert-success")
    assert web.objects[("PinApp", "proj-ads", "web")]["spec"]["operations"]["paused"] is True
    page.wait_for_selector("#workload-status [data-status='paused']")  # refreshed at once (workload-changed)

    web.patch("PinApp", "proj-ads", "web", {"spec": {"replicas": 9}})  # someone else changed it
    page.evaluate("document.getElementById('workload-version').value = '1'")  # ...after this page read it
    page.fill("#scale-replicas", "3")
    page.click("#actions button[data-op='scale']")
    confirm(page)
    error = page.wait_for_selector("#actions [data-error-status='409']")
    assert "changed since you read it" in error.inner_text()
    page.screenshot(path=str(screenshot_dir / "workload-action-conflict.png"), full_page=True)
    assert web.objects[("PinApp", "proj-ads", "web")]["spec"]["replicas"] == 9

    web.down = True
    page.click("#actions button[data-op='restart']")
    confirm(page)
    down = page.wait_for_selector("#actions [data-error-status='503']")
    assert "Nothing was changed" in down.inner_text()
