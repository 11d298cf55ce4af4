"""Benchmark: the log archive (not a test): the node agent's shipping rate into a real VictoriaLogs, and the portal's
query of one pod's last 1,000 lines.

    .venv/bin/python bench/log_archive.py [--pods 100] [--lines 2000] [--queries 200]

Starts VictoriaLogs (built by ``build_binaries.sh victoria-logs``) in a temporary dir, writes ``--pods`` pods' console
logs (CRI lines) and ``/var/log/app.log`` files of ``--lines`` lines each, then ships them all with the pod
supervisor's agent (``devtools/localcp/pods/ship.py``, one process, as on one node) and reports lines/s until the store
took the last. Then it runs the portal's query (``debugging.logs.archive``: the project scope, ``limit=1000``, newest
first, parsed) for one pod ``--queries`` times and reports p50/p99, and the store's bytes per line once flushed.
Prints the figures and writes bench/results/log_archive.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "bench" / "results" / "log_archive.json"
NAMESPACE = "proj-bench"


def write_pods(root: Path, pods: int, lines: int) -> list[Any]:
    from devtools.localcp.pods.pump import cri_line
    from devtools.localcp.pods.watch import Pod

    out = []
    for i in range(pods):
        name = f"bench-{i:03d}"
        fs = root / name / "fs"
        (fs / "var" / "log").mkdir(parents=True)
        console = root / f"{name}.log"
        text = [f'[bench/{name}] seq={n} level=info msg="processed batch" items={n % 500}' for n in range(lines)]
        console.write_text("".join(cri_line("stdout", t) for t in text))
        (fs / "var" / "log" / "app.log").write_text("".join(t + "\n" for t in text))
        labels = (("pincompute.io/workload", "bench"), ("pincompute.io/kind", "PinApp"))
        out.append(Pod(NAMESPACE, name, f"uid-{i}", fs, console, labels, ("app",)))
    return out


def ship(url: str, root: Path, pods: list[Any]) -> dict[str, float]:
    from devtools.localcp.pods.ship import LogShipper
    from devtools.localcp.pods.watch import Registry

    registry = Registry()
    for pod in pods:
        registry.put(pod)
    shipper = LogShipper("member-a", url, registry, root / "offsets.json")
    for pod in pods:
        shipper.track(pod)
    started = time.perf_counter()
    while shipper.ship_once():
        pass
    seconds = time.perf_counter() - started
    rate = round(shipper.shipped / seconds)
    return {"lines": shipper.shipped, "seconds": round(seconds, 2), "lines_per_second": rate}


def query(url: str, pod: str, runs: int) -> dict[str, float]:
    os.environ.update({"DJANGO_SETTINGS_MODULE": "console.settings", "DEBUG": "true", "LOG_ARCHIVE_URL": url})
    import django

    django.setup()
    from debugging.logs.archive import _store, build_query
    from projects.models import Project

    project = Project(name=NAMESPACE.removeprefix("proj-"))
    timings, first_byte, count = [], [], 0
    for _ in range(runs):
        started = time.perf_counter()
        params = build_query(project, {"pod": pod, "limit": "1000"}).params()
        resp = _store("/select/logsql/query", params)
        rows = [json.loads(r) for r in resp.text.splitlines() if r]
        rows.sort(key=lambda r: r["_time"], reverse=True)
        timings.append((time.perf_counter() - started) * 1000)
        first_byte.append(float(resp.headers.get("VL-Request-Duration-Seconds", "nan")) * 1000)
        count = len(rows)

    def pct(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))], 1)

    return {
        "lines": count,
        "runs": runs,
        "p50_ms": pct(timings, 0.5),
        "p99_ms": pct(timings, 0.99),
        "store_first_byte_p50_ms": pct(first_byte, 0.5),  # VictoriaLogs' own VL-Request-Duration-Seconds
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pods", type=int, default=100)
    ap.add_argument("--lines", type=int, default=2000, help="lines per pod, in its console log and in its app.log")
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    from devtools.localcp.victorialogs import VictoriaLogs, free_port

    with tempfile.TemporaryDirectory(prefix="bench-vlogs-") as tmp:
        root = Path(tmp)
        store = VictoriaLogs(root / "store", free_port())
        store.start()
        try:
            pods = write_pods(root / "pods", args.pods, args.lines)
            shipped = ship(store.url, root, pods)
            print(json.dumps({"ship": shipped}), flush=True)
            subprocess.run(["curl", "-s", "-XPOST", f"{store.url}/internal/force_flush"], check=True)
            queried = query(store.url, pods[0].name, args.queries)
            print(json.dumps({"query_last_1000": queried}), flush=True)
            store.stop()  # all parts on disk
            size = sum(f.stat().st_size for f in (root / "store" / "data").rglob("*") if f.is_file())
        finally:
            store.stop()
    result = {
        "pods": args.pods,
        "lines_per_pod": args.lines * 2,
        "ship": shipped,
        "query_last_1000": queried,
        "store_bytes_per_line": round(size / shipped["lines"], 1),
        "load_average": os.getloadavg()[0],
    }
    print(json.dumps(result, indent=2))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
