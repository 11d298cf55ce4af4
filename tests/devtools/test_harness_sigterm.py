"""A test session sent SIGTERM (CI's job timeout, ``timeout``) stops everything it started: PostgreSQL, Redis, the
local control plane and the pods' sandboxes. By default the signal ended pytest at once and left some 25 processes
running (found after a timed-out run). The session runs here as CI runs it, an xdist controller and a worker, and
only the controller is signalled."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import psutil
import pytest

from devtools.waiting import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(240)]
PROBE = "tests/harness/probes/sigterm_probe.py"


def listening(url: str) -> bool:
    parts = urlsplit(url)
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex((parts.hostname or "127.0.0.1", parts.port or 0)) == 0


def left_under(path: Path) -> list[str]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        line = " ".join(proc.info["cmdline"] or [])
        if str(path) in line:
            found.append(line[:160])
    return found


def test_a_sigterm_to_the_session_stops_every_component_it_started(tmp_path):
    out, basetemp = tmp_path / "probe.json", tmp_path / "basetemp"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}  # a session of its own
    env["SIGTERM_PROBE_OUT"] = str(out)
    session = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-n", "1", "-p", "no:cacheprovider", f"--basetemp={basetemp}", PROBE],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for(lambda: (out.exists() and out.stat().st_size > 0) or session.poll() is not None, 150,
                 what="the probe session's components up")  # fmt: skip
        assert session.poll() is None, session.communicate()[0][-3000:]
        where = json.loads(out.read_text())
        assert all(listening(url) for url in where.values()), where
        assert left_under(basetemp)  # the control plane runs from under the session's basetemp

        session.send_signal(signal.SIGTERM)
        output = session.communicate(timeout=90)[0]
    finally:
        if session.poll() is None:
            session.kill()
            session.communicate()

    assert "KeyboardInterrupt: signal 15" in output, output[-3000:]
    time.sleep(1)
    assert not [name for name, url in where.items() if listening(url)], output[-3000:]
    assert not left_under(basetemp)
