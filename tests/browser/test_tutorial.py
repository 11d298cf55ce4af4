# ruff: noqa: F811 - fixtures imported from tests/support are named as parameters
"""The tutorial followed as its text says, in Chromium and a terminal, against the real stack (the portal's ASGI app
under uvicorn, the registry's host and members with the platform installed, the federation operator placing the
shards): from the dashboard to the tutorial; the first workload's YAML taken from the page; an API token created on
the tokens page; the CLI commands the page prints run as printed (``pincompute`` as a process, pointed at the URL the
page gives); the workload's page and its logs on every member cluster; a shell in its pod; the CLI's logs and exec
lines with the pod and cluster ``get pods`` named. Screenshots: tutorial.png, dashboard-developer.png,
tutorial-logs-every-cluster.png, tutorial-shell.png."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

import pytest

from devtools.waiting import wait_for
from tests.support.browser import TERMINAL_SCREEN_TEXT, signed_in
from tests.support.journey import (  # noqa: F401 - fixtures, used by name
    created,
    eager_tasks,
    federation,
    operator,
    pools,
    project,
    register,
)
from tests.support.sdk import SDK_DIR, asgi_portal  # noqa: F401 - fixture, used by name

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools", "operator"),
]


def cli_env(page_text: str, token: str) -> dict[str, str]:
    """The environment the page's ``export`` line sets, with the token the tokens page gave."""
    [export] = [line for line in page_text.splitlines() if line.startswith("export ")]
    env = dict(pair.split("=", 1) for pair in shlex.split(export)[1:])
    assert env["PINCONSOLE_TOKEN"] == "pct_..."
    return {**os.environ, **env, "PINCONSOLE_TOKEN": token, "PYTHONPATH": str(SDK_DIR)}


def pincompute(line: str, env: dict[str, str], cwd, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """One ``pincompute ...`` line of the page, run as a user runs it (the installed CLI is this module)."""
    argv = shlex.split(line)
    assert argv[0] == "pincompute", line
    command = [sys.executable, "-m", "pinconsole_sdk.cli", *argv[1:]]
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def test_the_tutorial_works_as_written(page, asgi_portal, project, user, tmp_path, screenshot_dir):
    base = asgi_portal.url
    signed_in(page, base, user)

    page.goto(f"{base}/")
    page.click("a:has-text('Tutorial')")
    page.wait_for_url(f"{base}/projects/tutorial/")
    assert page.locator("#tutorial-project").input_value() == project.name
    page.screenshot(path=str(screenshot_dir / "tutorial.png"), full_page=True)
    (tmp_path / "hello.yaml").write_text(page.locator("#first-workload").inner_text())
    commands = page.locator("#cli-commands").inner_text()
    logs_line = page.locator("#cli-logs").inner_text().strip()
    exec_line = page.locator("#cli-exec").inner_text().strip()

    page.click("[data-step=token]")
    page.fill("input[name=name]", "tutorial")
    page.click("button:has-text('Create token')")
    token = page.locator("#new-token").input_value()
    env = cli_env(commands, token)
    assert env["PINCONSOLE_URL"] == base  # the page names the portal it was served from

    lines = [line for line in commands.splitlines() if line.startswith("pincompute ")]
    applied = pincompute(lines[0], env, tmp_path)
    assert applied.returncode == 0 and "created" in applied.stdout, applied.stderr
    for line in lines[1:]:
        done = pincompute(line, env, tmp_path)
        assert done.returncode == 0, (line, done.stderr)

    def running_pod() -> tuple[str, str] | None:
        out = pincompute(lines[-1] + " -o json", env, tmp_path).stdout
        pods = json.loads(out or "{}").get("items") or []
        running = [p for p in pods if p.get("phase") == "Running"]
        return (running[0]["name"], running[0]["cluster"]) if running else None

    pod, cluster = wait_for(running_pod, timeout=120, interval=2)

    page.goto(f"{base}/")  # the dashboard now shows what the workload holds of the grant
    page.screenshot(path=str(screenshot_dir / "dashboard-developer.png"), full_page=True)
    assert page.locator(f"#quota-use tr[data-use='{project.name}/ondemand']").is_visible()

    page.goto(f"{base}/projects/tutorial/?project={project.name}")
    page.click("[data-step=workload-page]")
    page.click("[data-logs-everywhere]")
    page.locator("[data-logstream-output] [data-source]").first.wait_for(timeout=40_000)
    page.screenshot(path=str(screenshot_dir / "tutorial-logs-every-cluster.png"))

    page.goto(f"{base}/projects/tutorial/?project={project.name}")
    page.click(f"li:has(code:text-is('{pod}')) [data-step=shell]")
    terminal = page.locator("[data-terminal]")
    page.wait_for_selector("[data-terminal][data-state=connected]", timeout=30_000)
    page.wait_for_function("el => el.pinTerminal.term.buffer.active.cursorX > 0", arg=terminal.element_handle())
    terminal.click()
    page.keyboard.type("echo tutorial-$((6*7))")
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"el => ({TERMINAL_SCREEN_TEXT})(el).split('\\n').some(row => row.trim() === 'tutorial-42')",
        arg=terminal.element_handle(),
        timeout=20_000,
    )
    page.screenshot(path=str(screenshot_dir / "tutorial-shell.png"))

    # the terminal lines, with the pod and cluster ``get pods`` named: a follow is stopped after its first lines,
    # and exec runs one command instead of a terminal (no terminal here to be interactive in)
    logs = logs_line.replace("POD", pod).replace("CLUSTER", cluster).replace(" -f", " --tail 5")
    assert pincompute(logs, env, tmp_path).returncode == 0
    shell = exec_line.replace("POD", pod).replace("CLUSTER", cluster).replace(" -it", "") + " -- echo from-cli"
    executed = pincompute(shell, env, tmp_path)
    assert executed.returncode == 0 and executed.stdout.strip() == "from-cli", executed.stderr
