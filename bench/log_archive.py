"""Benchmark: the log archive (not a test): the node agent's shipping rate into a real VictoriaLogs, the portal's
query of one pod's last 1,000 lines, the lag from a line written to it being searchable, and the portal's queries of
one workload holding 10M lines.

    .venv/bin/python bench/log_archive.py [--pods 100] [--lines 2000] [--queries 200] [--lag-samples 50]
        [--bulk-lines 10000000]

Starts VictoriaLogs (built by ``build_binaries.sh victoria-logs``) in a temporary dir, writes ``--pods`` pods' console
logs (CRI lines) and ``/var/log/app.log`` files of ``--lines`` lines each, then ships them all with the pod
supervisor's agent (``devtools/localcp/pods/ship.py``, one process, as on one node) and reports lines/s until the store
took the last. Then it runs the portal's query (``debugging.logs.archive``: the project scope, ``limit=1000``, newest
first, parsed) for one pod ``--queries`` times and reports p50/p99, and the store's bytes per line once flushed.
``--lag-samples``: with the agent shipping as the supervisor runs it (``LogShipper.run``, its 0.5 s period), a line
with a unique word is appended to a pod's console log and the portal's query polled (every 20 ms) until it finds it:
written-to-searchable p50/p99 (goal p99 <= 2 s, issue 30). ``--bulk-lines``: that many more lines of the same
workload are loaded straight into the store (JSON lines, the agent's records and labels, 100k per request: the
agent alone would take minutes), then the portal's workload queries are timed over them: the newest 1,000 lines,
and a word found in 1 line in 10,000 (goal p99 <= 500 ms). Prints the figures and writes
bench/results/log_archive.json.
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


def _shipper(url: str, root: Path, pods: list[Any]) -> Any:
    """member-a's node agent, tracking ``pods``' log files."""
    from devtools.localcp.pods.ship import LogShipper
    from devtools.localcp.pods.watch import Registry

    registry = Registry()
    for pod in pods:
        registry.put(pod)
    shipper = LogShipper("member-a", url, registry, root / "offsets.json")
    for pod in pods:
        shipper.track(pod)
    return shipper


def ship(url: str, root: Path, pods: list[Any]) -> dict[str, float]:
    shipper = _shipper(url, root, pods)
    started = time.perf_counter()
    while shipper.ship_once():
        pass
    seconds = time.perf_counter() - started
    rate = round(shipper.shipped / seconds)
    return {"lines": shipper.shipped, "seconds": round(seconds, 2), "lines_per_second": rate}


def _portal(url: str) -> Any:
    os.environ.update({"DJANGO_SETTINGS_MODULE": "console.settings", "DEBUG": "true", "LOG_ARCHIVE_URL": url})
    import django

    django.setup()
    from projects.models import Project

    return Project(name=NAMESPACE.removeprefix("proj-"))


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))], 1)


def lag(url: str, root: Path, pods: list[Any], samples: int) -> dict[str, float]:
    """Written-to-searchable, the agent shipping on its own period as on a node."""
    import threading
    import uuid

    project = _portal(url)
    from debugging.logs.archive import _store, build_query
    from devtools.localcp.pods.pump import cri_line

    shipper = _shipper(url, root, pods)
    runner = threading.Thread(target=shipper.run, daemon=True)
    runner.start()
    took: list[float] = []
    try:
        for i in range(samples):
            pod = pods[i % len(pods)]
            word = f"lag{uuid.uuid4().hex[:12]}"
            with pod.console_log.open("a") as out:
                out.write(cri_line("stdout", f"marker {word}"))
            written = time.perf_counter()
            params = build_query(project, {"pod": pod.name, "q": word, "limit": "1"}).params()
            while not _store("/select/logsql/query", params).text.strip():
                time.sleep(0.02)
            took.append((time.perf_counter() - written) * 1000)
    finally:
        shipper.stop.set()
        runner.join(10)
    floor = store_lag(url, project, samples)
    return {"samples": samples, "p50_ms": _pct(took, 0.5), "p99_ms": _pct(took, 0.99), "max_ms": round(max(took), 1),
            "store_floor": floor}  # fmt: skip


def store_lag(url: str, project: Any, samples: int) -> dict[str, float]:
    """The floor under the lag: a line posted straight to the store (no agent, no file) until the same query finds
    it, which is how long the store itself takes to make a line searchable."""
    import urllib.request
    import uuid

    from debugging.logs.archive import _store, build_query
    from devtools.localcp.pods.ship import insert_url

    took: list[float] = []
    headers = {"Content-Type": "application/stream+json"}
    for _ in range(samples):
        word = f"floor{uuid.uuid4().hex[:12]}"
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        record = {"namespace": NAMESPACE, "pod": "floor-0", "source": "console", "_time": stamp, "_msg": word}
        body = (json.dumps(record) + "\n").encode()
        started = time.perf_counter()
        urllib.request.urlopen(urllib.request.Request(insert_url(url), data=body, headers=headers), timeout=30).read()
        params = build_query(project, {"pod": "floor-0", "q": word, "limit": "1"}).params()
        while not _store("/select/logsql/query", params).text.strip():
            time.sleep(0.02)
        took.append((time.perf_counter() - started) * 1000)
    return {"p50_ms": _pct(took, 0.5), "p99_ms": _pct(took, 0.99)}


def bulk_load(url: str, total: int) -> dict[str, float]:
    """``total`` lines of workload ``bench`` (100 pods), as the agent labels them, straight into the store."""
    import urllib.request

    from devtools.localcp.pods.ship import insert_url

    batch, sent, started = 20_000, 0, time.perf_counter()
    base = {"cluster": "member-a", "namespace": NAMESPACE, "project": "", "workload": "bench", "kind": "PinApp",
            "container": "app", "source": "console", "stream": "stdout"}  # fmt: skip
    t0 = time.time() - 3600  # an hour of history, a line every few microseconds
    while sent < total:
        n = min(batch, total - sent)
        rows = []
        for k in range(sent, sent + n):
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t0 + k * 3600 / total))
            msg = f'seq={k} level=info msg="processed batch" items={k % 500}' + (" needle" if k % 10_000 == 0 else "")
            rows.append(json.dumps({**base, "pod": f"bulk-{k % 100:03d}", "pod_uid": f"bulk-{k % 100}",
                                    "_time": f"{stamp}.{k % 1_000_000:06d}Z", "_msg": msg}))  # fmt: skip
        body = ("\n".join(rows) + "\n").encode()
        headers = {"Content-Type": "application/stream+json"}  # as the agent sends (else read as a form)
        req = urllib.request.Request(insert_url(url), data=body, method="POST", headers=headers)
        with urllib.request.urlopen(req, timeout=300) as resp:
            resp.read()
        sent += n
    seconds = time.perf_counter() - started
    return {"lines": sent, "seconds": round(seconds, 1), "lines_per_second": round(sent / seconds)}


def workload_queries(url: str, runs: int) -> dict[str, Any]:
    """The portal's queries of the workload over everything the store holds of it."""
    project = _portal(url)
    from debugging.logs.archive import _store, build_query

    out: dict[str, Any] = {}
    asked = {
        "newest_1000": {"workload": "bench", "limit": "1000", "since": "7d"},
        "word_1_in_10000": {"workload": "bench", "q": "needle", "limit": "1000", "since": "7d"},
    }
    for label, params in asked.items():
        timings, count = [], 0
        for _ in range(runs):
            started = time.perf_counter()
            resp = _store("/select/logsql/query", build_query(project, params).params())
            count = sum(1 for r in resp.text.splitlines() if r)
            timings.append((time.perf_counter() - started) * 1000)
        out[label] = {"lines": count, "runs": runs, "p50_ms": _pct(timings, 0.5), "p99_ms": _pct(timings, 0.99)}
    return out


def query(url: str, pod: str, runs: int) -> dict[str, float]:
    project = _portal(url)
    from debugging.logs.archive import _store, build_query

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

    return {
        "lines": count,
        "runs": runs,
        "p50_ms": _pct(timings, 0.5),
        "p99_ms": _pct(timings, 0.99),
        "store_first_byte_p50_ms": _pct(first_byte, 0.5),  # VictoriaLogs' own VL-Request-Duration-Seconds
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pods", type=int, default=100)
    ap.add_argument("--lines", type=int, default=2000, help="lines per pod, in its console log and in its app.log")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--lag-samples", type=int, default=50)
    ap.add_argument("--bulk-lines", type=int, default=10_000_000, help="more lines of the workload, loaded directly")
    args = ap.parse_args()
    from devtools.localcp.procs import free_port
    from devtools.localcp.victorialogs import VictoriaLogs

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
            lagged = lag(store.url, root, pods, args.lag_samples)
            print(json.dumps({"lag": lagged}), flush=True)
            loaded = bulk_load(store.url, args.bulk_lines) if args.bulk_lines else {}
            subprocess.run(["curl", "-s", "-XPOST", f"{store.url}/internal/force_flush"], check=True)
            big = workload_queries(store.url, max(20, args.queries // 4)) if args.bulk_lines else {}
            print(json.dumps({"bulk": loaded, "workload_queries": big}), flush=True)
            store.stop()  # all parts on disk
            size = sum(f.stat().st_size for f in (root / "store" / "data").rglob("*") if f.is_file())
        finally:
            store.stop()
    result = {
        "pods": args.pods,
        "lines_per_pod": args.lines * 2,
        "ship": shipped,
        "query_last_1000": queried,
        "searchable_lag": lagged,
        "bulk": loaded,
        "workload_queries_over_bulk": big,
        "store_bytes_per_line": round(size / (shipped["lines"] + lagged["samples"] + loaded.get("lines", 0)), 1),
        "load_average": os.getloadavg()[0],
    }
    print(json.dumps(result, indent=2))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
