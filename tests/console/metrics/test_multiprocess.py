"""Multiprocess mode's bookkeeping: a worker process that died no longer counts in the open-sessions gauge (its live
gauge file is dropped at the next scrape), while its counters stay in the totals."""

from __future__ import annotations

import os
import subprocess
import sys

from prometheus_client import CollectorRegistry, generate_latest, multiprocess

from base.metrics_hooks import forget_dead_processes
from tests.support.metrics import families, value

WORKER = """
from base import metrics
metrics.OPEN_SESSIONS.labels("shell").inc(2)
metrics.REQUESTS.labels("healthz", "GET", "2xx").inc(3)
"""


def exposed(directory: str) -> dict:
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, directory)
    return families(generate_latest(registry).decode())


def test_a_dead_workers_open_sessions_are_forgotten_and_its_counters_kept(tmp_path):
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-c", WORKER], env=env, check=True, timeout=60)  # a worker that served, then died
    before = exposed(str(tmp_path))

    forget_dead_processes(str(tmp_path))

    after = exposed(str(tmp_path))
    assert value(before, "pinconsole_debug_sessions_open", kind="shell") == 2
    assert value(after, "pinconsole_debug_sessions_open", kind="shell") == 0
    for found in (before, after):
        assert value(found, "pinconsole_http_requests_total", view="healthz", method="GET", status="2xx") == 3


def test_a_live_process_keeps_its_open_sessions(tmp_path):
    (tmp_path / f"gauge_livesum_{os.getpid()}.db").write_bytes(b"")  # this process: alive

    forget_dead_processes(str(tmp_path))

    assert (tmp_path / f"gauge_livesum_{os.getpid()}.db").exists()
