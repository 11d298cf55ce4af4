"""The usage and cost page in a real browser: a developer sees their project's cost over time, by tier and by
workload, switches the aggregate in place (htmx), and downloads the CSV; samples come from the sampler over
hand-filled member caches (the sampling itself is tested against the real clusters in tests/usage)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.factories import fill
from tests.support.pods import running_pod
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
from usage.rollup import roll_up
from usage.sampling import sample

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]
PASSWORD = "pw-cost-Secret!"


@pytest.fixture
def three_hours(project, caches):  # noqa: F811
    """``ads`` ran web (2 OnDemand cores), batch (4 Preemptible cores) and train (a Reserved GPU pod) for three
    hours, sampled every five minutes (the gaps carried), the finished hours rolled up."""
    fill(caches, "member-a", pods=[running_pod("web-1", "ads"), running_pod("web-2", "ads"),
                                   running_pod("batch-1", "ads", cpu="4", tier="preemptible", workload="batch",
                                               kind="PinterestJobSet")])  # fmt: skip
    fill(caches, "member-b", pods=[running_pod("train-0", "ads", cpu="8", memory="32Gi", gpu="1", tier="reserved",
                                               workload="train", kind="PinterestTrainingJob")])  # fmt: skip
    now = timezone.now()
    for minutes in range(180, 0, -5):
        sample(now - timedelta(minutes=minutes))
    roll_up(now)


def test_the_cost_page_shows_charts_switches_aggregate_and_exports(
    three_hours,
    page,
    live_server,
    developer,  # noqa: F811
    screenshot_dir,
):
    developer.set_password(PASSWORD)
    developer.save()
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", developer.get_username())
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")

    page.goto(f"{live_server.url}/usage/projects/ads/?window=24h&step=1h&aggregate=workload")
    page.wait_for_selector("canvas#cost-by-tier[style*='height']")  # Chart.js sized it: drawn

    rows = page.locator("#cost-table tbody tr")
    names = [rows.nth(i).locator("td").first.inner_text().strip() for i in range(rows.count())]
    assert names[0] == "PinterestTrainingJob/train"  # the GPU pod costs most
    assert set(names) == {"PinterestTrainingJob/train", "PinterestJobSet/batch", "PinApp/web"}
    assert float(page.locator("#cost-total").inner_text().split()[0]) > 0
    by_tier = json.loads(page.locator("canvas#cost-by-tier").get_attribute("data-chart"))
    assert by_tier["data"]["labels"] == ["reserved", "ondemand", "preemptible"]  # by tier whatever the table shows
    page.screenshot(path=str(screenshot_dir / "usage-project-cost.png"), full_page=True)

    page.select_option("#f-aggregate", "tier")
    page.wait_for_function("() => document.querySelector('#cost-table td').textContent.trim() === 'reserved'")
    assert "aggregate=tier" in page.url  # the swapped view keeps a shareable URL
    with page.expect_download() as download:
        page.click("#cost-csv")
    lines = download.value.path().read_text().splitlines()

    assert lines[0].startswith("step_start,step_end,name,project,team,cost_center,tier")
    assert {line.split(",")[2] for line in lines[1:]} == {"reserved", "ondemand", "preemptible"}
