"""Benchmark: the CPU one test worker's components burn while no test runs (issue 36's floor; not a test).

    .venv/bin/python bench/suite_idle.py [--settle 30] [--window 60] [--nodes 20]

Starts what one pytest-xdist worker of the suite starts for its session (``tests/harness/plugin.py`` and
``tests/harness/localcp.py``: PostgreSQL, Redis, VictoriaLogs, Prometheus scraping the kwok nodes every 2 s, Mailpit,
a host and two member clusters of ``--nodes`` kwok nodes each), lets them settle, then counts every process's CPU
time on the machine over ``--window`` seconds (``/proc/<pid>/stat``, grouped by program). The suite runs three such
workers on 2 cores: three times this figure is what the machine spends on components before any test does anything.
Run it on a quiet machine. Prints a table and writes ``bench/results/suite_idle.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from suite_cpu import machine_busy, sample  # noqa: E402 - a sibling script, as federation.py imports ssa_floor

from devtools.localcp import LocalControlPlane  # noqa: E402
from devtools.localcp.mailpit import Mailpit  # noqa: E402
from devtools.localcp.procs import free_port  # noqa: E402
from devtools.localcp.prometheus import Prometheus, write_targets  # noqa: E402
from devtools.localcp.victorialogs import VictoriaLogs  # noqa: E402
from tests.harness.services import Postgres, Redis  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "suite_idle.json"
WORKERS = 3  # pyproject's -n 3


def measure(window: float) -> tuple[dict[str, float], float]:
    """CPU seconds per program over ``window`` (``suite_cpu``'s sampling at both ends), and the machine's busy
    seconds."""
    seen: dict[tuple[int, str], list] = {}
    sample(seen)
    before, busy_before = {key: cpu for key, (_, cpu) in seen.items()}, machine_busy()
    time.sleep(window)
    sample(seen)
    per: dict[str, float] = defaultdict(float)
    for key, (program, cpu) in seen.items():
        per[program] += cpu - before.get(key, 0.0)
    ranked = {k: round(v, 2) for k, v in sorted(per.items(), key=lambda kv: -kv[1]) if v > 0.005}
    return ranked, machine_busy() - busy_before


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--settle", type=float, default=30.0, help="seconds between start and the window")
    ap.add_argument("--window", type=float, default=60.0)
    ap.add_argument("--nodes", type=int, default=int(os.environ.get("PINCONSOLE_TEST_NODES", "20")))
    ap.add_argument("--scrape", type=int, default=2, help="Prometheus scrape interval (the suite's: 2)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="suite-idle-"))
    pg, redis = Postgres(), Redis()
    archive = VictoriaLogs(work / "vlogs", free_port())
    metrics = Prometheus(work / "prometheus", free_port(), scrape_seconds=args.scrape)
    mail = Mailpit(work / "mailpit", free_port(), free_port())
    cp = LocalControlPlane(work / "localcp", members=2, nodes_per_member=args.nodes, log_archive_url=archive.url)
    started: list[object] = []
    try:
        for service in (pg, redis, archive, metrics, mail):
            service.start()
            started.append(service)
        t0 = time.monotonic()
        cp.up()
        started.append(cp)
        up_seconds = time.monotonic() - t0
        write_targets(metrics.targets_file, cp.clusters)
        print(
            f"one worker's components up ({up_seconds:.1f} s for the control plane); settling {args.settle:.0f} s",
            flush=True,
        )
        time.sleep(args.settle)
        per, busy = measure(args.window)
    finally:
        for service in reversed(started):
            (service.down if isinstance(service, LocalControlPlane) else service.stop)()  # type: ignore[attr-defined]
        shutil.rmtree(work, ignore_errors=True)
    share = busy / args.window
    print(f"\n{'program':22} {'cpu s':>7} {'% of a core':>12}")
    for comm, seconds in per.items():
        print(f"{comm:22} {seconds:7.2f} {100 * seconds / args.window:11.1f}%")
    print(
        f"\nmachine busy over the window: {busy:.1f} cpu s = {100 * share:.0f}% of one core;"
        f" x{WORKERS} workers = {100 * WORKERS * share / os.cpu_count():.0f}% of this {os.cpu_count()}-core machine"
    )
    result = {
        "nodes_per_member": args.nodes, "scrape_seconds": args.scrape, "window_seconds": args.window,
        "control_plane_up_seconds": round(up_seconds, 1), "cpu_seconds_by_program": per,
        "machine_busy_cpu_seconds": round(busy, 1), "cores": os.cpu_count(), "workers": WORKERS,
        "workers_share_of_machine": round(WORKERS * share / (os.cpu_count() or 1), 3),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
