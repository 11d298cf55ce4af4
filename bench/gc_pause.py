"""Benchmark: what the pods in a web replica's watch caches cost in memory and in full garbage collections (not a
test): the figures docs/scale.md projects to a region.

    .venv/bin/python bench/gc_pause.py [--sizes 10000,50000,100000] [--runs 5]

For each size, a fresh process fills the portal's real store (``clusters.kube.cache.cluster_store``: the same
slimming, indexes and aggregates as the watch caches) with realistic pod objects (tests/support/pods), then
measures the process's RSS growth per pod and the pause of a full collection (``gc.collect()``, the generation-2
pass Python runs now and then on its own), before and after ``gc.freeze()`` (clusters/kube/heap.py, which the web
replicas run once their caches' lists are in). Writes bench/results/gc_pause.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "gc_pause.json"


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def measure(pods: int, runs: int) -> dict[str, float]:
    """In this process: fill one store with ``pods`` pods, then time full collections."""
    import gc

    sys.path.insert(0, str(ROOT))
    from clusters.kube.cache import cluster_store
    from tests.support.pods import realistic_pod

    gc.collect()
    before = rss_kib()
    store = cluster_store()
    started = time.perf_counter()
    for i in range(pods):  # one watch event per pod, as a cache fills: each full object is dropped once slimmed
        store.apply("pods", "ADDED", realistic_pod(i, namespace=f"proj-{i % 500}"))
    filled = time.perf_counter() - started
    gc.collect()
    grown = rss_kib() - before
    pauses = []
    for _ in range(runs):
        started = time.perf_counter()
        gc.collect()
        pauses.append(time.perf_counter() - started)
    assert store.count("pods") == pods
    tracked = len(gc.get_objects())
    gc.freeze()  # what clusters.kube.heap does once the caches' lists are in
    frozen = []
    for _ in range(runs):
        started = time.perf_counter()
        gc.collect()
        frozen.append(time.perf_counter() - started)
    return {
        "pods": pods,
        "fill_s": round(filled, 2),
        "rss_bytes_per_pod": round(grown * 1024 / pods),
        "full_gc_ms_p50": round(statistics.median(pauses) * 1000, 1),
        "full_gc_ms_max": round(max(pauses) * 1000, 1),
        "gc_tracked_objects": tracked,
        "frozen_full_gc_ms_p50": round(statistics.median(frozen) * 1000, 1),
        "frozen_full_gc_ms_max": round(max(frozen) * 1000, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000,100000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child process measures one size
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.runs)))
        return
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        done = subprocess.run(
            [sys.executable, __file__, "--one", str(size), "--runs", str(args.runs)],
            capture_output=True, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": "0"},
        )  # fmt: skip
        row = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(row)
        gc_ms = f"full GC p50 {row['full_gc_ms_p50']} ms (max {row['full_gc_ms_max']} ms)"
        gc_ms += f", frozen {row['frozen_full_gc_ms_p50']} ms (max {row['frozen_full_gc_ms_max']} ms)"
        print(
            f"{row['pods']:>8} pods: {row['rss_bytes_per_pod']:>6} B/pod RSS, {gc_ms}, "
            f"{row['gc_tracked_objects']:,} tracked objects, fill {row['fill_s']} s"
        )
    result = {"sizes": rows, "load_average": os.getloadavg()[0], "python": sys.version.split()[0]}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
