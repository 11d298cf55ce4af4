"""Benchmark: the watch cache vs direct LISTs, memory per 10k pods, watch lag (not a test).

    .venv/bin/python bench/watch_cache.py [--state-dir /tmp/kube-helper-cp] [--sizes 1000,10000]

Uses a running local control plane in --state-dir (started, and stopped at the end, if not running).
Prints the figures and writes bench/results/watch_cache.json.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
import tracemalloc
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kubernetes import client as k8s
from kubernetes.client.exceptions import ApiException

from clusters.kube import ClientPool, ClusterTarget, WatchCache, cluster_store
from devtools.localcp import LocalControlPlane
from workloads.core.kube import rawapi

NS = "bench-watch-cache"
AUTH = ["BearerToken"]


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def timed(fn: Callable[[], Any], reps: int) -> tuple[dict[str, float], Any]:
    out, result = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        result = fn()
        out.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": round(pct(out, 50), 3), "p99_ms": round(pct(out, 99), 3), "reps": reps}, result


def pod_body(i: int, node: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"bench-{i:06d}",
            "labels": {
                "app.kubernetes.io/name": f"svc-{i % 50}",
                "pincompute.io/project": NS,
                "pincompute.io/workload": f"wl-{i % 200}",
                "bench": "watch-cache",
            },
            "annotations": {"pincompute.io/cost-center": "cc-1234"},
        },
        "spec": {
            "nodeName": node,
            "containers": [
                {
                    "name": "app",
                    "image": "registry.local/app:1.0",
                    "ports": [{"containerPort": 8080}],
                    "env": [
                        {"name": "PINCOMPUTE_PROJECT", "value": NS},
                        {"name": "PINCOMPUTE_TIER", "value": "ondemand"},
                    ],
                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
                }
            ],
            "tolerations": [{"operator": "Exists"}],
        },
    }


def create_pods(api: k8s.ApiClient, nodes: list[str], start: int, stop: int, workers: int = 16) -> float:
    def post(i: int) -> None:
        try:
            resp = api.call_api(
                f"/api/v1/namespaces/{NS}/pods",
                "POST",
                body=pod_body(i, nodes[i % len(nodes)]),
                auth_settings=AUTH,
                _preload_content=False,
                _return_http_data_only=True,
            )
            _ = resp.data  # read before release: an unread body poisons the pooled connection
            resp.release_conn()
        except ApiException as exc:
            if exc.status != 409:
                raise

    t0 = time.perf_counter()
    with ThreadPoolExecutor(workers) as ex:
        list(ex.map(post, range(start, stop)))
    return (stop - start) / (time.perf_counter() - t0)


def wait_for(check: Callable[[], bool], timeout: float, what: str) -> float:
    t0 = time.perf_counter()
    while not check():
        if time.perf_counter() - t0 > timeout:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.1)
    return time.perf_counter() - t0


def measure_reads(cache: WatchCache, api: k8s.ApiClient, n: int) -> dict[str, Any]:
    core = k8s.CoreV1Api(api)
    reps = 200 if n <= 1000 else 50
    cache_stats, items = timed(lambda: cache.list("pods", namespace=NS), reps)
    sel_stats, _ = timed(
        lambda: cache.list("pods", namespace=NS, label_selector={"pincompute.io/workload": "wl-7"}), reps
    )
    count_stats, _ = timed(lambda: cache.count("pods", namespace=NS), reps)

    def raw() -> bytes:
        resp = rawapi.open_get(api, f"/api/v1/namespaces/{NS}/pods", [], (3, 120))
        data = resp.data
        resp.release_conn()
        json.loads(data)
        return data

    raw_stats, raw_bytes = timed(raw, 20 if n <= 1000 else 5)
    typed_stats, _ = timed(lambda: core.list_namespaced_pod(NS, _request_timeout=(3, 300)), 5 if n <= 1000 else 2)
    return {
        "pods": len(items),
        "cache_list_namespace": cache_stats,
        "cache_list_label_selector": sel_stats,
        "cache_count": count_stats,
        "direct_list_raw_json": raw_stats,
        "direct_list_deserialized": typed_stats,
        "bytes_direct_list": len(raw_bytes),
        "bytes_cached_slim_json": len(json.dumps(items)),
    }


def measure_memory(api: k8s.ApiClient, indexed: frozenset[str] | None, clones: int = 1) -> dict[str, Any]:
    resp = rawapi.open_get(api, f"/api/v1/namespaces/{NS}/pods", [], (3, 120))
    raw, _ = resp.data, resp.release_conn()
    gc.collect()
    tracemalloc.start()
    items = json.loads(raw)["items"]
    if clones > 1:  # synthetic scale-up: same shapes, distinct names (cache-side only)
        base = items
        items = [json.loads(json.dumps(o)) for _ in range(clones) for o in base]
        for i, o in enumerate(items):
            o["metadata"]["name"] = f"{o['metadata']['name']}-c{i}"
    store = cluster_store(indexed)
    t0 = time.perf_counter()
    store.replace("pods", items)
    replace_s = time.perf_counter() - t0
    del items
    gc.collect()
    current, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    n = store.count("pods")
    list_stats, _ = timed(lambda: store.list("pods", namespace=NS), 10)
    return {
        "pods": n,
        "bytes": current,
        "mib": round(current / 2**20, 1),
        "bytes_per_pod": current // max(n, 1),
        "replace_s": round(replace_s, 3),
        "list_all": list_stats,
    }


def measure_lag(cache: WatchCache, api: k8s.ApiClient, writes: int) -> dict[str, Any]:
    core = k8s.CoreV1Api(api)
    from_start, from_ack = [], []
    for i in range(writes):
        name = f"bench-{i % 1000:06d}"
        t0 = time.perf_counter()
        core.patch_namespaced_pod(name, NS, {"metadata": {"annotations": {"bench/seq": str(i)}}})
        t1 = time.perf_counter()
        while True:
            obj = cache.get("pods", NS, name) or {}
            if (obj.get("metadata", {}).get("annotations") or {}).get("bench/seq") == str(i):
                break
            time.sleep(0.0002)
        t2 = time.perf_counter()
        from_start.append((t2 - t0) * 1000)
        from_ack.append((t2 - t1) * 1000)

    def summary(xs: list[float]) -> dict[str, float]:
        return {"p50_ms": round(pct(xs, 50), 2), "p99_ms": round(pct(xs, 99), 2)}

    return {"writes": writes, "write_start_to_visible": summary(from_start), "write_ack_to_visible": summary(from_ack)}


def cleanup(api: k8s.ApiClient) -> None:
    """Delete the namespace; the namespace controller removes the pods in the background.

    (A deletecollection of 10k pods outlives the apiserver's 60 s request timeout: 504.)
    """
    try:
        k8s.CoreV1Api(api).delete_namespace(NS, grace_period_seconds=0)
    except ApiException as exc:
        if exc.status not in (404, 409):
            raise


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--state-dir", type=Path, default=Path("/tmp/kube-helper-cp"))
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--lag-writes", type=int, default=200)
    ap.add_argument("--synthetic-100k", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "watch_cache.json")
    args = ap.parse_args()
    cp = LocalControlPlane(args.state_dir, members=1, nodes_per_member=20)
    started = not cp.is_healthy()
    if started:
        cp.up()
    member = next(c for c in cp.clusters if c.role == "member")
    pool = ClientPool([ClusterTarget(member.name, str(cp.kubeconfig_path), member.context)])
    api = pool.api(member.name)
    core = k8s.CoreV1Api(api)
    results: dict[str, Any] = {"cluster": member.name, "sizes": {}}
    try:
        cleanup(api)
        wait_for(lambda: not [n for n in core.list_namespace().items if n.metadata.name == NS], 900, "old namespace")
        core.create_namespace({"metadata": {"name": NS}})
        nodes = [n.metadata.name for n in core.list_node(label_selector="type=kwok").items]
        cache = WatchCache(pool, member.name)
        cache.start()
        assert cache.wait_synced(30), cache.last_error
        have = 0
        for n in [int(s) for s in args.sizes.split(",")]:
            rate = create_pods(api, nodes, have, n)
            have = n
            visible = wait_for(lambda n=n: cache.count("pods", NS) >= n, 600, f"{n} pods in cache")
            running = wait_for(
                lambda n=n: cache.aggregates()["pods_by_phase"].get("Running", 0) >= n, 600, "kwok Running"
            )
            print(
                f"[{n}] created at {rate:.0f} pods/s (raw POST, 16 threads); in cache +{visible:.1f}s; "
                f"all Running +{running:.1f}s",
                flush=True,
            )
            res = {"create_rate_pods_per_s": round(rate, 1), "reads": measure_reads(cache, api, n)}
            cold = WatchCache(pool, member.name)
            t0 = time.perf_counter()
            cold.start()
            cold.wait_synced(300)
            res["cold_start_sync_s"] = round(time.perf_counter() - t0, 2)
            cold.stop()
            if n >= 10000 or n == have:
                res["memory_all_labels_indexed"] = measure_memory(api, None)
                res["memory_three_labels_indexed"] = measure_memory(
                    api, frozenset({"pincompute.io/project", "pincompute.io/workload", "app.kubernetes.io/name"})
                )
            results["sizes"][str(n)] = res
            print(json.dumps(res, indent=1), flush=True)
        results["watch_lag"] = measure_lag(cache, api, args.lag_writes)
        print("watch lag:", json.dumps(results["watch_lag"]), flush=True)
        if args.synthetic_100k and have >= 10000:
            results["synthetic_100k_cache_only"] = measure_memory(api, None, clones=100000 // have)
            print("synthetic 100k (cache side only):", json.dumps(results["synthetic_100k_cache_only"]), flush=True)
        results["pods_100k_on_apiserver"] = (
            "skipped: creating 100k pods on a 2-core machine at the measured "
            "rate takes well over the 10-minute budget and etcd/kwok memory"
        )
        cache.stop()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2))
        print(f"wrote {args.out}")
    finally:
        cleanup(api)
        pool.close()
        if started:
            cp.down()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
