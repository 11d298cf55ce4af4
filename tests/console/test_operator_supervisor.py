"""The dev stack keeps its operator running: a process that exits (a lost lease when the host apiserver
stops) is started again, and stopping the supervisor stops it for good."""

from __future__ import annotations

import subprocess
import sys
import time

from devtools import devstack
from devtools.waiting import wait_for


def test_an_exited_operator_is_started_again_and_stop_ends_it(monkeypatch, tmp_path):
    started: list[subprocess.Popen[bytes]] = []

    def fake_start(cp, clusters, log_dir):
        code = "import time; time.sleep(0.2)" if not started else "import time; time.sleep(60)"
        started.append(subprocess.Popen([sys.executable, "-c", code]))  # the first one exits at once
        return started[-1]

    monkeypatch.setattr(devstack, "start_operator", fake_start)
    supervisor = devstack.OperatorSupervisor(None, [], tmp_path, max_backoff=1)

    wait_for(lambda: supervisor.restarts == 1, 10, what="the exited operator started again")
    assert supervisor.proc is started[1] and supervisor.proc.poll() is None
    supervisor.stop(timeout=5)
    assert started[1].poll() is not None
    time.sleep(1.5)
    assert len(started) == 2  # stopped for good
