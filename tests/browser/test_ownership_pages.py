# ruff: noqa: F811 - fixtures imported from tests.support are named as parameters
"""Ownership in Chromium: an owner edits the project's on-call contact and links in place (htmx), a refusal is shown
beside the field it names and the form keeps what was typed; the workload page shows what it takes from its project;
the tools page from the navigation. Screenshots: ownership-edit-refused.png, ownership.png, workload-ownership.png,
tools.png."""

from __future__ import annotations

import pytest

from tests.support.browser import console_errors, signed_in
from tests.support.fake_host import fake_host, web  # noqa: F401 - fixtures, used by name
from tests.support.projects import (  # noqa: F401 - fixtures, used by name
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


def test_an_owner_edits_ownership_in_place_and_the_workload_and_tools_pages_show_it(
    page, live_server, web, owner, screenshot_dir
):
    signed_in(page, live_server.url, owner)
    errors = console_errors(page)
    page.set_viewport_size({"width": 1400, "height": 1000})

    page.goto(f"{live_server.url}/projects/ads/")
    page.click("#ownership button:has-text('Edit')")
    page.fill("#ownership-oncall", "call bob")
    page.fill("#link-0-title", "Runbook")
    page.fill("#link-0-url", "ftp://wiki.example.com/ads")
    page.click("#ownership button[type=submit]")
    page.wait_for_selector("#ownership [data-error='oncall']")
    assert "is not an on-call contact" in page.inner_text("#ownership [data-error='oncall']")
    assert "http:// or https://" in page.inner_text("#ownership [data-error='links[0].url']")
    assert page.input_value("#link-0-title") == "Runbook"
    page.locator("#ownership").screenshot(path=str(screenshot_dir / "ownership-edit-refused.png"))

    page.fill("#ownership-oncall", "#ads-oncall")
    page.select_option("#link-0-kind", "runbook")
    page.fill("#link-0-url", "https://wiki.example.com/ads/runbook")
    page.fill("#link-1-title", "Grafana")
    page.select_option("#link-1-kind", "dashboard")
    page.fill("#link-1-url", "https://grafana.example.com/d/ads")
    page.click("#ownership button[type=submit]")
    page.wait_for_selector("#ownership [data-link='dashboard']")
    assert "#ads-oncall" in page.inner_text("#ownership [data-oncall]")
    page.screenshot(path=str(screenshot_dir / "ownership.png"), full_page=True)

    page.goto(f"{live_server.url}/workloads/ads/PinApp/web/")
    page.wait_for_selector("#ownership [data-link='runbook']")
    assert "On-call contact and links from the project" in page.inner_text("#ownership [data-inherited]")
    page.screenshot(path=str(screenshot_dir / "workload-ownership.png"))

    page.click("a.nav-link:has-text('Tools')")
    page.wait_for_url(f"{live_server.url}/tools/")
    assert page.locator("[data-tool='api']").is_visible() and page.locator("[data-project='ads']").is_visible()
    page.screenshot(path=str(screenshot_dir / "tools.png"), full_page=True)
    assert [e for e in errors if "status of 400" not in e] == [] and len(errors) == 1  # the refusal's 400 only
