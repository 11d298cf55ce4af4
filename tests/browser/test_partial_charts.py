# ruff: noqa: F811 - fixtures imported from the support modules are named as parameters
"""Charts in content htmx swaps in are drawn, as on a full page load.

1. The project's quota charts after a grant change (the #quota card is swapped).
2. The catalog preview's placement-score and quota-fit charts (the preview is swapped into #preview).
"""

from __future__ import annotations

import base64

import pytest

from tests.support.kinds import *  # noqa: F403
from tests.support.kinds import granted, members  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

DRAWN = """(id) => {
  const canvas = document.getElementById(id);
  if (!canvas || !canvas.width || !canvas.height) return false;
  const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i]) return true;
  return false;
}"""


def sign_in(page, live_server, user, password: str):
    user.set_password(password)
    user.save()
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", user.get_username())
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    return page


def drawn(page, chart_id: str) -> bool:
    """Whether the chart's canvas holds a painted pixel (a chart that was never built is transparent)."""
    page.wait_for_selector(f"#{chart_id}", state="attached")
    try:
        page.wait_for_function(DRAWN, arg=chart_id, timeout=5000)
    except Exception:  # noqa: BLE001 - playwright's TimeoutError: the canvas stayed blank
        return False
    return True


def test_the_quota_charts_are_drawn_again_after_a_grant_change(page, live_server, granted, owner, screenshot_dir):
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    sign_in(page, live_server, owner, "pw-dev1-Secret!")
    page.goto(f"{live_server.url}/projects/ads/")
    assert drawn(page, "quota-cpu-chart") and drawn(page, "quota-memory-chart")

    form = page.locator("form.quota-change[data-tier=ondemand]")
    form.locator("input[name='ondemand-cpu']").fill("9")
    form.locator("input[name='ondemand-memory']").fill("16Gi")
    form.locator("input[name='ondemand-pods']").fill("20")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#quota [data-quota-result]")

    assert drawn(page, "quota-cpu-chart") and drawn(page, "quota-memory-chart")
    assert errors == []
    page.locator("#quota").screenshot(path=str(screenshot_dir / "partial-charts-quota.png"))


def test_the_preview_draws_its_placement_and_quota_charts(
    page, live_server, granted, members, developer, screenshot_dir
):
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    sign_in(page, live_server, developer, "pw-devi-Secret!")
    page.goto(f"{live_server.url}/workloads/catalog/pinapps/")

    page.click("#preview-button")
    page.wait_for_selector("#preview [data-verdict]")

    assert drawn(page, "preview-scores") and drawn(page, "preview-quota-cpu")
    assert errors == []
    page.locator("#preview").screenshot(path=str(screenshot_dir / "partial-charts-preview.png"))


PIXEL = """async ([png, x, fromBottom]) => {
  const img = new Image();
  img.src = "data:image/png;base64," + png;
  await img.decode();
  const canvas = Object.assign(document.createElement("canvas"), {width: img.width, height: img.height});
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  return {height: img.height, rgb: Array.from(ctx.getImageData(x, img.height - fromBottom, 1, 1).data.slice(0, 3))};
}"""


def test_the_dark_sidebar_reaches_the_bottom_of_a_long_page(
    page, live_server, granted, members, developer, screenshot_dir
):
    sign_in(page, live_server, developer, "pw-devi-Secret!")
    page.goto(f"{live_server.url}/workloads/catalog/pinapps/")
    page.click("#preview-button")
    page.wait_for_selector("#preview [data-verdict]")

    shot = page.screenshot(path=str(screenshot_dir / "sidebar-long-page.png"), full_page=True)
    bottom_left = page.evaluate(PIXEL, [base64.b64encode(shot).decode(), 20, 5])

    assert bottom_left["height"] > 2 * 900  # a long page, in one picture
    assert bottom_left["rgb"] == [0x11, 0x18, 0x27]  # the sidebar's colour (--pc-sidebar-bg) down to the end
