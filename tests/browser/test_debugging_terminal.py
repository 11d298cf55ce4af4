"""The terminal in Chromium against a real kwok pod, through the ASGI app under uvicorn (HTTP and websockets):
type ``echo hello`` and see it, copy the selection, end the session (the reason and a Reconnect button), then
replay the recording from the sessions page with asciinema-player; a workload's logs across both member clusters
with distinct source colours, filter, highlight, pause and download. Screenshots: terminal-hello.png,
terminal-ended.png, recording-replay.png, workload-logs-all-clusters.png."""

# ruff: noqa: F811 - fixtures imported from the debugging tests are named as parameters

from __future__ import annotations

import pytest

from debugging.models import DebugSession
from projects.lifecycle import set_shell_recording
from tests.support.browser import TERMINAL_SCREEN_TEXT, console_errors, signed_in
from tests.support.debugging import (  # noqa: F401 - fixtures, used by name
    live_pods,
    member,
    project,
    spread_workload,
    uvicorn_default_ws,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
]


def test_the_terminal_echoes_copies_ends_with_its_reason_and_the_recording_replays(
    page, live_pods, project, user, uvicorn_default_ws, screenshot_dir
):
    member(project, user, "owner")
    set_shell_recording(project, True, actor=user)
    base = uvicorn_default_ws.replace("ws://", "http://")
    signed_in(page, base, user)
    errors = console_errors(page)
    pod = live_pods["names"][0]

    page.goto(f"{base}/debug/member-a/{project.namespace}/{pod}/shell/?container=app")
    terminal = page.locator("[data-terminal]")
    page.wait_for_selector("[data-terminal][data-state=connected]", timeout=30_000)
    shells = page.locator("[data-terminal-shell] option").all_inner_texts()
    assert shells == ["auto (bash if present)", "sh", "bash"]  # the pod has bash: the probe offers it
    assert page.locator("[data-terminal-recorded]").is_visible()
    page.wait_for_function("el => el.pinTerminal.term.buffer.active.cursorX > 0", arg=terminal.element_handle())
    terminal.click()
    page.keyboard.type("echo hello")
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"el => ({TERMINAL_SCREEN_TEXT})(el).split('\\n').some(row => row.trim() === 'hello')",
        arg=terminal.element_handle(),
        timeout=20_000,
    )
    page.screenshot(path=str(screenshot_dir / "terminal-hello.png"))

    page.evaluate("el => el.pinTerminal.term.selectAll()", terminal.element_handle())
    page.click("[data-terminal-copy]")
    assert "echo hello" in terminal.get_attribute("data-copied")

    # a paste longer than one message may hold (65536 characters) goes out in pieces and runs whole
    long_line = "echo " + "y" * 70_000 + " | wc -c"
    terminal.click()
    page.evaluate("([el, text]) => el.pinTerminal.term.paste(text)", [terminal.element_handle(), long_line])
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"el => ({TERMINAL_SCREEN_TEXT})(el).split('\\n').some(row => row.trim() === '70001')",
        arg=terminal.element_handle(),
        timeout=30_000,
    )

    terminal.click()
    page.keyboard.type("exit")
    page.keyboard.press("Enter")
    ended = page.locator("[data-terminal-ended]")
    ended.wait_for(state="visible", timeout=20_000)
    page.screenshot(path=str(screenshot_dir / "terminal-ended.png"))
    assert "Session ended: Shell ended (exit 0) (code 1000)" in ended.inner_text()
    assert page.locator("[data-terminal-reconnect]").is_visible()

    session = DebugSession.objects.get(kind="shell")
    page.goto(f"{base}/debug/sessions/{project.name}/")
    page.click(f'[data-session="{session.pk}"] [data-recording-link]')
    page.wait_for_url(f"{base}/debug/recordings/{session.pk}/")
    player = page.locator("[data-asciicast]")
    page.wait_for_function(
        "el => el.innerText.includes('70001') && el.innerText.includes('exit')",  # the screen at the end
        arg=player.element_handle(),
        timeout=30_000,
    )
    page.screenshot(path=str(screenshot_dir / "recording-replay.png"))
    assert player.locator(".ap-player").count() == 1
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors


def test_a_workload_stream_shows_both_clusters_prefixed_and_coloured_with_filter_and_highlight(
    page, spread_workload, project, user, uvicorn_default_ws, screenshot_dir
):
    member(project, user, "viewer")
    base = uvicorn_default_ws.replace("ws://", "http://")
    signed_in(page, base, user)
    workload, namespace = spread_workload["workload"], spread_workload["namespace"]

    page.goto(f"{base}/debug/workload/{namespace}/{workload}/logs/")
    out = page.locator("[data-logstream-output]")
    for cluster in ("member-a", "member-b"):
        out.locator(f'[data-source^="{cluster}/"]').first.wait_for(timeout=40_000)
    page.fill("[data-logstream-highlight]", "processed")
    page.locator("mark.log-mark").first.wait_for(timeout=10_000)
    page.screenshot(path=str(screenshot_dir / "workload-logs-all-clusters.png"))

    colours = page.evaluate(
        """() => { const seen = {};
          for (const row of document.querySelectorAll('[data-source]'))
            seen[row.dataset.source] = row.style.getPropertyValue('--pod');
          return seen; }"""
    )
    assert len(colours) >= 3 and len(set(colours.values())) == len(colours)  # one distinct colour per source
    page.fill("[data-logstream-filter]", "member-b/")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-source]')].every(r => r.dataset.source.startsWith('member-b/'))"
    )
    page.click("[data-logstream-follow]")  # pause
    assert page.locator("[data-logstream]").get_attribute("data-following") == "false"
    with page.expect_download() as download:
        page.click("[data-logstream-download]")
    text = download.value.path().read_text()
    assert text and all(" member-b/" in line for line in text.splitlines())
