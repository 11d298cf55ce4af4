# ruff: noqa: F811 - fixtures imported from tests.support are named as parameters
"""The search box in Chromium: "/" focuses it from any page, typing part of a name shows ranked suggestions (the
developer's workload and its pod, never another tenant's), Enter opens the results page. Screenshot: search.png."""

from __future__ import annotations

import pytest

from projects.models import Membership, Project
from tests.support.browser import console_errors, signed_in
from tests.support.factories import HOST, fill, make_cluster, workload_cr
from tests.support.fakes import FilledCache, fake_pod
from tests.support.projects import caches, developer, fast_passwords  # noqa: F401 - fixtures, used by name

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_slash_focuses_the_box_and_suggestions_follow_the_typing(page, live_server, caches, developer, screenshot_dir):
    ads = Project.objects.create(name="ads", team="ads-team", cost_center="CC-1")
    ml = Project.objects.create(name="ml", team="ml-team", cost_center="CC-2")
    Membership.objects.create(project=ads, user=developer, role="developer")
    make_cluster("member-a")
    fill(caches, HOST, workload_cr("checkout-web", project="ads"), workload_cr("checkout-train", project="ml"))
    caches["member-a"] = FilledCache(
        {"pods": [fake_pod("checkout-web-5d8f-x1", "proj-ads"), fake_pod("checkout-train-0", "proj-ml")]}
    )
    signed_in(page, live_server.url, developer)
    errors = console_errors(page)

    page.goto(f"{live_server.url}/projects/")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.matches('[data-search-input]')")
    page.keyboard.type("check")
    hits = page.locator("#search-suggestions [data-search-hit]")
    hits.first.wait_for()
    assert hits.all_inner_texts()[0].startswith("WORKLOAD") and len(hits.all_inner_texts()) == 2
    assert "checkout-train" not in page.inner_text("#search-suggestions") and ml.name
    page.screenshot(path=str(screenshot_dir / "search.png"))

    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/search/?q=check")
    assert page.locator("#search-results [data-search-hit]").count() == 2
    page.click("#search-results [data-search-hit=pod]")
    page.wait_for_url(f"{live_server.url}/debug/member-a/proj-ads/checkout-web-5d8f-x1/")
    assert errors == []
