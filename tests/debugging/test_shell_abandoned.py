"""A browser closed mid-shell closes the exec upstream: a Chromium of its own opens the terminal of a real kwok pod
through the portal under uvicorn, starts a loop that appends to a file in the pod, and is then SIGKILLed (the
kernel closes its sockets: no websocket close frame). The pod's sandbox goes away and the file stops growing, the
session row is closed with an audited ``shell.close``, and the user holds no open session any more (the per-user
cap counts none)."""

# ruff: noqa: F811 - fixtures imported from the debugging tests are named as parameters

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from base.models import AuditEvent
from debugging.models import DebugSession
from devtools.waiting import wait_for
from tests.harness.plugin import CHROMIUM_ARGS
from tests.harness.services import free_port
from tests.support.browser import signed_in
from tests.support.debugging import live_pods, member, project, uvicorn_default_ws  # noqa: F401 - fixtures

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
]

LOOP = "while :; do date +%s.%N >> /tmp/beat; sleep 0.2; done"


@pytest.fixture
def killable_browser(browser, tmp_path) -> Iterator[tuple[object, subprocess.Popen[bytes]]]:
    """A Chromium in a process group of its own, driven over CDP by the session's Playwright, that the test can
    SIGKILL as a whole (a closed laptop, a crashed browser), unlike the session's shared browser."""
    port = free_port()
    log = (tmp_path / "chromium.log").open("wb")
    proc = subprocess.Popen(
        [
            "/usr/bin/chromium",
            "--headless=new",
            f"--remote-debugging-port={port}",
            f"--user-data-dir={tmp_path / 'profile'}",
            *CHROMIUM_ARGS,
            "about:blank",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )

    def listening() -> bool:
        with contextlib.suppress(httpx.TransportError):
            return httpx.get(f"http://127.0.0.1:{port}/json/version", timeout=1).status_code == 200
        return False

    wait_for(listening, 30, what="chromium's DevTools endpoint")
    cdp = browser.browser_type.connect_over_cdp(f"http://127.0.0.1:{port}")  # type: ignore[attr-defined]
    yield cdp, proc
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    log.close()


def sandbox_pids(pod: str) -> list[int]:
    """Processes of the pod's exec sandboxes (bwrap names the sandbox's hostname after the pod)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                if b"--hostname" in argv and pod.encode() in argv:
                    found.append(int(entry.name))
    return found


def test_a_browser_killed_mid_shell_ends_the_exec_upstream_and_the_session(
    killable_browser, live_pods, project, user, uvicorn_default_ws, local_control_plane
):
    member(project, user, "owner")
    base = uvicorn_default_ws.replace("ws://", "http://")
    cdp, chromium = killable_browser
    page = cdp.new_context().new_page()  # type: ignore[attr-defined]
    signed_in(page, base, user)
    pod, namespace = live_pods["names"][0], live_pods["namespace"]
    beat = Path(local_control_plane.cluster("member-a").pods_dir) / namespace / pod / "fs" / "tmp" / "beat"

    page.goto(f"{base}/debug/member-a/{namespace}/{pod}/shell/?container=app")
    page.wait_for_selector("[data-terminal][data-state=connected]", timeout=30_000)
    terminal = page.locator("[data-terminal]")
    page.wait_for_function("el => el.pinTerminal.term.buffer.active.cursorX > 0", arg=terminal.element_handle())
    terminal.click()
    page.keyboard.type(LOOP)
    page.keyboard.press("Enter")
    wait_for(lambda: beat.exists() and beat.stat().st_size > 100, 30, what="the loop writing in the pod")
    assert sandbox_pids(pod), "the shell's sandbox is not running"
    session = DebugSession.objects.get(kind="shell", user=user, ended_at__isnull=True)

    os.killpg(chromium.pid, signal.SIGKILL)  # every Chromium process: the kernel closes the sockets, no close frame
    killed = time.monotonic()
    wait_for(lambda: not sandbox_pids(pod), 30, interval=0.1, what="the pod's shell sandbox gone")
    gone = time.monotonic() - killed
    size = beat.stat().st_size
    time.sleep(1.5)  # the loop wrote every 0.2 s
    assert beat.stat().st_size == size, "the loop still runs in the pod"

    session.refresh_from_db()
    assert session.ended_at is not None and session.end_reason == "client closed", session.end_reason
    closed = AuditEvent.objects.get(action="shell.close", after__session=session.pk)
    assert closed.actor == user and closed.after["reason"] == "client closed"
    assert not DebugSession.objects.filter(user=user, ended_at__isnull=True).exists()
    print(f"sandbox gone {gone:.2f} s after the browser was killed")
