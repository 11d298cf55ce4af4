"""The README's run command: the portal answers on the printed URL and the printed demo login works;
Ctrl-C leaves no operator or cluster process behind."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.conf import settings

from devtools.dev import bind_refusal
from tests.harness.services import free_port

ROOT = Path(__file__).resolve().parents[2]


def _wait_for_line(proc, pattern, lines, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            if proc.poll() is not None:
                break
            continue
        lines.append(line)
        if re.search(pattern, line):
            return line
    raise AssertionError(f"{pattern!r} not printed within {timeout}s:\n{''.join(lines[-40:])}")


@pytest.mark.integration
@pytest.mark.cluster
@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_dev_serves_the_printed_url_and_login_then_stops_cleanly(tmp_path, stop_signal):
    port = free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "PINCONSOLE_PROGRESS"}
    }
    env.update(
        {
            "PINCONSOLE_VAR_DIR": str(tmp_path / "var"),
            "PINCONSOLE_DEV_STATE": str(tmp_path / "state"),
            "PINCONSOLE_BOOTSTRAPPED": "1",
            "DEBUG": "true",
            "PYTHONUNBUFFERED": "1",
        }
    )
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "dev", "--port", str(port), "--nodes", "4"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    try:
        url = re.search(r"ready at (\S+)", _wait_for_line(proc, r"ready at http", lines, 240)).group(1)
        login = re.search(r"sign in as demo / (\S+)", _wait_for_line(proc, r"sign in as demo", lines, 10)).group(1)
        _wait_for_line(proc, r"everything is live in", lines, 240)  # the portal answered long before

        with httpx.Client(base_url=url, follow_redirects=False, timeout=20) as http:
            page = http.get("/login/")
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
            signed_in = http.post(
                "/login/",
                data={"username": "demo", "password": login, "csrfmiddlewaretoken": token},
                headers={"Referer": url},
            )
            dashboard = http.get("/")
            workloads = http.get("/workloads/")
            ready = http.get("/readyz").json()

        assert signed_in.status_code == 302
        assert dashboard.status_code == 200 and "Welcome" in dashboard.text
        assert "ranker" in workloads.text  # the demo workload's shards, read from the members' watch caches
        assert ready == {"status": "ok"}  # the demo user is no admin: the status only
    finally:
        proc.send_signal(stop_signal)
        proc.wait(timeout=90)
    output = "".join(lines) + proc.stdout.read()
    assert "stopping local clusters" in output
    # a progress line when each step ends (slow ones also announce themselves when they start)
    steps = re.findall(r"^\[dev\] +(\d+)/(\d+) ([^:]+): .* \(\S+, total \S+\)$", output, re.MULTILINE)
    assert [title for _, _, title in steps] == [
        "database",
        "portal",  # answers first; the rest comes up behind it
        "control-plane binaries",
        "clusters up",
        "register clusters",
        "CRDs and PriorityClasses",
        "demo data",
        "operator",
        "history recorder",
        "watch caches",
    ]
    assert [int(n) for n, _, _ in steps] == list(range(1, 11)) and {total for _, total, _ in steps} == {"10"}
    # the federation: members registered as MemberCluster objects on the host before the operator starts with
    # --host-context, and the demo PinApp written once on the host, sharded onto both members
    assert re.search(r"CRDs and PriorityClasses: .*MemberCluster objects: host: applied \d+, deleted 0", output)
    assert "operator: running, federation on host" in output
    beat = len(settings.CELERY_BEAT_SCHEDULE)  # the embedded default's beat: every entry of the schedule
    assert re.search(rf"demo data: .*; {beat} beat entries run in-process, the most frequent every \d+s", output)
    assert "watch caches: synced; demo PinApp ranker placed on member-a, member-b" in output, output
    leftovers = subprocess.run(["pgrep", "-af", str(tmp_path)], capture_output=True, text=True).stdout.strip()
    assert leftovers == "", leftovers


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "portal.example.com"])
def test_dev_refuses_a_non_loopback_address_with_a_clear_message(tmp_path, host):
    env = dict(os.environ, PINCONSOLE_BOOTSTRAPPED="1", PINCONSOLE_VAR_DIR=str(tmp_path / "var"))
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "dev", "--host", host, "--no-clusters", "--no-serve"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"--host {host} would expose" in done.stderr and "--allow-remote" in done.stderr
    assert "[dev]" not in done.stdout  # refused before any step (no database, no cluster)
    assert not (tmp_path / "var").exists()


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"])
def test_dev_accepts_loopback(host):
    assert bind_refusal(host, allow_remote=False) is None


def test_allow_remote_is_the_explicit_way_out():
    assert bind_refusal("0.0.0.0", allow_remote=True) is None
    assert "--allow-remote" in (bind_refusal("0.0.0.0", allow_remote=False) or "")
