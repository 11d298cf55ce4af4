"""The pod page's Debug action in Chromium against a real kwok pod (issue 35 §4): the Debug tab starts a debug
container, shows its progress, then its terminal, whose shell reads the pod's own log file. Screenshot:
debug-container.png."""

# ruff: noqa: F811 - fixtures imported from the debugging tests are named as parameters

from __future__ import annotations

import pytest

from tests.support.browser import TERMINAL_SCREEN_TEXT, console_errors, signed_in
from tests.support.debugging import (  # noqa: F401 - fixtures, used by name
    live_pods,
    member,
    project,
    uvicorn_default_ws,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
]


def test_the_debug_tab_starts_a_debug_container_and_opens_its_terminal(
    page, live_pods, project, user, uvicorn_default_ws, screenshot_dir
):
    member(project, user, "developer")
    base = uvicorn_default_ws.replace("ws://", "http://")
    signed_in(page, base, user)
    errors = console_errors(page)
    pod = live_pods["names"][0]

    page.goto(f"{base}/debug/member-a/{project.namespace}/{pod}/")
    page.click("[data-debug-tab]")
    page.click("[data-debug-start]")
    page.wait_for_selector("[data-debug-container][data-state=running] [data-terminal][data-state=connected]",
                           timeout=60_000)  # fmt: skip
    terminal = page.locator("[data-debug-container] [data-terminal]")
    page.wait_for_function("el => el.pinTerminal.term.buffer.active.cursorX > 0", arg=terminal.element_handle())
    terminal.click()
    page.keyboard.type("head -1 /var/log/app.log")
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"el => ({TERMINAL_SCREEN_TEXT})(el).includes('[{project.namespace}/{pod}] seq=')",
        arg=terminal.element_handle(),
        timeout=20_000,
    )
    page.screenshot(path=str(screenshot_dir / "debug-container.png"))

    assert terminal.get_attribute("data-ws-url").startswith(f"/ws/exec/member-a/{project.namespace}/{pod}/debugger-")
    assert not errors, errors
