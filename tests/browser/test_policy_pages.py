"""The project page's Policy section and the policy defaults page in Chromium: a platform admin sets allowed kinds and
tiers, registries, a maximum per container and sidecar exec; a bad value is refused beside the field it names and
changes nothing; a member reads the policy without a form. Screenshots: policy-refused.png, policy-saved.png,
policy-member.png, policy-defaults-refused.png, policy-defaults-saved.png."""

from __future__ import annotations

import pytest

from pincompute.policy import parse_policy
from projects.models import Project
from projects.policy import default_policy
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

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def patient(page):
    """The machine runs several suites at once: a page may take longer than Playwright's 30 s default to load."""
    page.set_default_timeout(GENEROUS_MS)


def test_an_admin_sets_the_policy_in_place_and_a_member_reads_it(
    project,  # noqa: F811
    viewer,  # noqa: F811
    admin_user,
    page,
    live_server,
    screenshot_dir,
):
    signed_in(page, live_server.url, admin_user)
    page.goto(f"{live_server.url}/projects/ads/")
    section = page.locator("#policy")
    section.locator("summary:has-text('Edit the policy')").click()

    section.locator("input[name=allowedKinds]").evaluate_all("boxes => boxes.forEach(b => b.checked = false)")
    section.locator("input[name=allowedKinds][value=PinApp]").check()
    section.locator("input[name=allowedKinds][value=PinPod]").check()
    section.locator("input[name=allowedTiers][value=Preemptible]").uncheck()
    section.locator("textarea[name=imageRegistries]").fill("registry.local/search\nhttps://bad")
    section.locator("input[name=max_cpu]").fill("lots")
    section.locator("input[name=sidecarExec]").uncheck()
    section.locator("button:has-text('Save policy')").click()
    page.wait_for_selector("#policy .invalid-feedback")
    page.screenshot(path=str(screenshot_dir / "policy-refused.png"), full_page=True)

    assert "is not a registry host" in page.locator("#id_imageRegistries_error").inner_text()
    assert "is not a quantity" in page.locator("#id_max_cpu_error").inner_text()
    assert page.locator("#policy details").get_attribute("open") is not None  # the form stays open with the errors
    assert parse_policy(Project.objects.get(name="ads").policy).registries is None  # nothing saved

    section.locator("textarea[name=imageRegistries]").fill("registry.local/search")
    section.locator("input[name=max_cpu]").fill("4")
    section.locator("input[name=max_memory]").fill("8Gi")
    section.locator("button:has-text('Save policy')").click()
    page.wait_for_selector("#policy [data-policy-registries]:has-text('registry.local/search')")
    page.screenshot(path=str(screenshot_dir / "policy-saved.png"), full_page=True)

    assert page.locator("[data-policy-kinds]").inner_text() == "PinApp, PinPod"
    assert "Preemptible" not in page.locator("[data-policy-tiers]").inner_text()
    assert page.locator("[data-policy-max]").inner_text() == "cpu 4, memory 8Gi (requests and limits)"
    assert "forbidden" in page.locator("#policy").inner_text()
    saved = parse_policy(Project.objects.get(name="ads").policy)
    assert saved.kinds == {"PinApp", "PinPod"} and saved.registries == ("registry.local/search",)

    signed_in(page, live_server.url, viewer)
    page.goto(f"{live_server.url}/projects/ads/")
    page.locator("#policy").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "policy-member.png"), full_page=True)

    assert page.locator("[data-policy-registries]").inner_text() == "registry.local/search"
    assert page.locator("#policy form").count() == 0
    assert page.locator("#policy summary").count() == 0


def test_an_admin_edits_the_defaults_with_errors_beside_the_fields(admin_user, page, live_server, screenshot_dir):
    signed_in(page, live_server.url, admin_user)
    page.goto(f"{live_server.url}/projects/policy-defaults/")

    page.locator("input[name=max_memory]").fill("8 gigs")
    page.locator("input[name=allowedTiers][value=Preemptible]").uncheck()
    page.locator("button:has-text('Save policy')").click()
    page.wait_for_selector("#policy-defaults .invalid-feedback")
    page.screenshot(path=str(screenshot_dir / "policy-defaults-refused.png"), full_page=True)

    assert "is not a quantity" in page.locator("#id_max_memory_error").inner_text()
    assert page.locator("#policy-defaults .invalid-feedback").count() == 1
    assert not default_policy().max_per_container

    page.locator("input[name=max_memory]").fill("8Gi")
    page.locator("button:has-text('Save policy')").click()
    page.wait_for_selector("#policy-defaults [role=status]:has-text('Saved.')")
    page.screenshot(path=str(screenshot_dir / "policy-defaults-saved.png"), full_page=True)

    assert page.locator("input[name=max_memory]").input_value() == "8Gi"
    assert not page.locator("input[name=allowedTiers][value=Preemptible]").is_checked()
    assert default_policy().max_per_container == {"memory": 8 << 30}
