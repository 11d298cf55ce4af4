"""The load test's 30 s run (bench/load.py, the same entry point as the 10-minute run whose figures are in
bench/README.md): the portal as in production (uvicorn with 2 workers, PostgreSQL, Redis, DEBUG off) on the
suite's control plane, with 200 people browsing and calling the API, 100 open shells and 50 followed logs.

Asserts correctness only: no error of any kind (HTTP, socket, the portal's error log, the load generator) and
every kind of traffic served. Latencies and memory are printed and written, not asserted (a shared 2-core CI
machine); the goals are recorded in the report it writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.cluster]
ROOT = Path(__file__).resolve().parents[2]
# 350 people started at 50 a second are all connected after 7 s; 23 s of all of them at once prove what a minute
# did (every kind of traffic served, no error), and the 10-minute run in bench/README.md measures the rest.
SECONDS = 30


def test_thirty_seconds_of_load_end_without_an_error(local_control_plane, tmp_path):
    out = tmp_path / "load.json"
    run = subprocess.run(
        [
            *(sys.executable, str(ROOT / "bench" / "load.py"), "--state-dir", str(local_control_plane.state_dir)),
            *("--duration", str(SECONDS), "--users", "200", "--shells", "100", "--logs", "50", "--out", str(out)),
            *("--spawn-rate", "50"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    print(run.stdout[-4000:])
    assert out.exists(), run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads(out.read_text())

    assert report["errors"]["total"] == 0, json.dumps(report["errors"], indent=1)[:4000]
    assert run.returncode == 0, run.stderr[-3000:]
    assert report["pages"]["requests"] > 0 and report["api"]["requests"] > 0
    assert all(report["pages"]["by_name"][name]["n"] > 0 for name in ("page: dashboard", "page: workload detail"))
    assert all(report["api"]["by_name"][name]["n"] > 0 for name in ("api: pods list", "api: workload timeline"))
    assert report["shells"]["opened"] == 100 and report["shells"]["commands"] > 0
    assert report["logs"]["opened"] == 50 and report["logs"]["lines"] > 0
    assert report["shells"]["closed_by_client"] == 100 and report["logs"]["closed_by_client"] == 50
    assert report["rss"]["samples"] >= SECONDS // 5 - 1  # one every 5 s
