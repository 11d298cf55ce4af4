# ruff: noqa: F811 - fixtures imported from the support modules are named as parameters
"""Switching shells on the shell page swaps the terminal and its note as one: the note is never doubled."""

from __future__ import annotations

import pytest

from tests.support.debugging import fake_member, member, project  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]
NOTE = "p:has-text('Shell sessions are audited')"


def test_switching_shells_keeps_one_note(page, live_server, fake_member, project, user, screenshot_dir):
    member(project, user, "developer")
    user.set_password("pw-Shell-123!")
    user.save()
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", user.get_username())
    page.fill("input[name=password]", "pw-Shell-123!")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    page.goto(f"{live_server.url}/debug/member-x/proj-ads/web-1/shell/")
    assert page.locator(NOTE).count() == 1

    for shell in ("sh", "auto", "sh"):
        with page.expect_response(lambda r: "/shell/?" in r.url):
            page.select_option("[data-terminal-shell]", shell)
        picked = ":not([data-ws-url*='?shell='])" if shell == "auto" else "[data-ws-url$='?shell=sh']"
        page.wait_for_selector(f"[data-terminal]{picked}", state="attached")

    assert page.locator(NOTE).count() == 1 and page.locator("[data-terminal-panel]").count() == 1
    page.screenshot(path=str(screenshot_dir / "shell-after-switching.png"))
