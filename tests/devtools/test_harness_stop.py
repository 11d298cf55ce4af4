"""The session harness stops its services when a worker exits without pytest's unconfigure (xdist ending it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Imports the plugin as pytest would, starts the services as a worker does, prints their pids, then leaves
# without pytest_unconfigure: only the plugin's atexit handler can stop them.
_WORKER = """
import json, os, sys
os.environ["PYTEST_XDIST_WORKER"] = "gw9"
from tests.harness import plugin
plugin._start_backing_services()
services = (plugin._postgres, plugin._redis, plugin._archive, plugin._metrics, plugin._mail)
print(json.dumps([s.proc.pid for s in services]), flush=True)
sys.exit(0)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.integration
def test_a_worker_that_never_unconfigures_stops_every_service_at_exit() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "REDIS_URL"))}
    done = subprocess.run(
        [sys.executable, "-c", _WORKER], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-3000:]
    pids = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(pids) == 5
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [pid for pid in pids if _alive(pid)]
    for pid in left:  # never leave them behind, even when the test fails
        os.killpg(pid, 9)
    assert not left, f"services still running after the worker exited: {left}\n{done.stderr[-3000:]}"
    assert "Exception ignored in atexit" not in done.stderr, done.stderr[-3000:]
