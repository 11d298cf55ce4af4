"""Benchmark: operator reconcile latency and throughput on the local control plane (not a test).

    .venv/bin/python bench/operator.py [--state-dir /tmp/op-cp] [--sizes 100,1000]

For each size N: N PinPods (1 pod each) are created as fast as 8 client threads can, split over the
two member clusters; a watch on each member records when each CR's pod appears and when the CR's
status turns Ready (observedGeneration current). Latency = that moment minus the CR's create call
returning. Also: reconciles per second (operator /metrics), operator RSS (VmHWM). Writes
bench/results/operator.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kubernetes import client, watch  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402
from urllib3.exceptions import ProtocolError  # noqa: E402

from devtools.localcp import LocalControlPlane  # noqa: E402
from devtools.localcp.nodes import api_client  # noqa: E402
from devtools.operator_process import OperatorProcess, install_crds  # noqa: E402
from devtools.waiting import wait_for  # noqa: E402
from pincompute.labels import FEDERATED_LABEL, HOST_UID_ANNOTATION  # noqa: E402

APP = {"name": "app", "image": "registry.local/bench/app:1", "resources": {"requests": {"cpu": "10m"}}}
# the marks the federation puts on a shard: the member operator runs nothing without them
SHARD_MARKS = {"labels": {FEDERATED_LABEL: "true"}, "annotations": {HOST_UID_ANNOTATION: "bench-host"}}


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))] if s else float("nan")


def rss_kib(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS", "VmHWM")):
            fields[line.split(":")[0]] = int(line.split()[1])
    return fields


class Observer:
    """Watches PinPods and Pods in one namespace of one member; records first-seen times."""

    def __init__(self, api: client.ApiClient, namespace: str) -> None:
        self.api, self.namespace = api, namespace
        self.ready: dict[str, float] = {}
        self.pod_seen: dict[str, float] = {}
        self.stop = threading.Event()
        for target in (self._crs, self._pods):
            threading.Thread(target=target, daemon=True).start()

    def _crs(self) -> None:
        custom = client.CustomObjectsApi(self.api)
        while not self.stop.is_set():
            with _quiet_at_teardown(self.stop):
                self._crs_once(custom)

    def _crs_once(self, custom: client.CustomObjectsApi) -> None:
        for event in watch.Watch().stream(
            custom.list_namespaced_custom_object, "pincompute.io", "v1", self.namespace, "pinpods", timeout_seconds=30
        ):
            obj = event["object"]
            status = obj.get("status") or {}
            ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])
            if ready and status.get("observedGeneration") == obj["metadata"].get("generation"):
                self.ready.setdefault(obj["metadata"]["name"], time.monotonic())

    def _pods(self) -> None:
        core = client.CoreV1Api(self.api)
        while not self.stop.is_set():
            with _quiet_at_teardown(self.stop):
                self._pods_once(core)

    def _pods_once(self, core: client.CoreV1Api) -> None:
        for event in watch.Watch().stream(core.list_namespaced_pod, self.namespace, timeout_seconds=30):
            self.pod_seen.setdefault(event["object"].metadata.name, time.monotonic())


@contextlib.contextmanager
def _quiet_at_teardown(stop: threading.Event) -> Iterator[None]:
    """Watches break when the namespace or cluster goes away at the end; only then is that expected."""
    try:
        yield
    except (ProtocolError, ApiException, OSError):
        if not stop.is_set():
            time.sleep(0.5)


def run_size(n: int, apis: dict[str, client.ApiClient], op: OperatorProcess, rate: float = 0.0) -> dict[str, Any]:
    namespace = f"bench-op-{n}-{uuid.uuid4().hex[:4]}"
    for api in apis.values():
        client.CoreV1Api(api).create_namespace({"metadata": {"name": namespace}})
    observers = {name: Observer(api, namespace) for name, api in apis.items()}
    time.sleep(1.0)
    names = list(apis)
    created: dict[str, tuple[str, float]] = {}
    before = op.metrics()

    def create(index: int) -> None:
        cluster = names[index % len(names)]
        name = f"pp-{index:05d}"
        body = {
            "apiVersion": "pincompute.io/v1",
            "kind": "PinPod",
            "metadata": {"name": name, "namespace": namespace, **SHARD_MARKS},
            "spec": {"project": "bench", "containers": [APP]},
        }
        client.CustomObjectsApi(apis[cluster]).create_namespaced_custom_object(
            "pincompute.io", "v1", namespace, "pinpods", body
        )
        created[name] = (cluster, time.monotonic())

    start = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        if rate > 0:  # paced arrivals: latency of one object when the system keeps up
            for index in range(n):
                time.sleep(max(0.0, start + index / rate - time.monotonic()))
                pool.submit(create, index)
        else:  # a burst: as fast as 8 client threads can create
            list(pool.map(create, range(n)))
    create_seconds = time.monotonic() - start

    def all_ready() -> bool:
        return sum(len(o.ready) for o in observers.values()) >= n

    wait_for(all_ready, timeout=60 + n * 0.5, interval=0.2, what=f"{n} PinPods Ready")
    total = time.monotonic() - start
    after = op.metrics()
    ready_lat = [observers[c].ready[name] - t for name, (c, t) in created.items()]
    pod_lat = [observers[c].pod_seen[name] - t for name, (c, t) in created.items() if name in observers[c].pod_seen]
    reconciles = after.get("reconciles", 0) - before.get("reconciles", 0)
    for obs in observers.values():
        obs.stop.set()
    result = {
        "resources": n,
        "arrival": f"{rate:g}/s paced" if rate > 0 else "burst",
        "create_seconds": round(create_seconds, 2),
        "all_ready_seconds": round(total, 2),
        "cr_to_pod_created_p50_ms": round(pct(pod_lat, 50) * 1000, 1),
        "cr_to_pod_created_p99_ms": round(pct(pod_lat, 99) * 1000, 1),
        "cr_to_ready_p50_ms": round(pct(ready_lat, 50) * 1000, 1),
        "cr_to_ready_p99_ms": round(pct(ready_lat, 99) * 1000, 1),
        "cr_to_ready_max_ms": round(max(ready_lat) * 1000, 1),
        "reconciles": int(reconciles),
        "reconciles_per_cr": round(reconciles / n, 2),
        "reconciles_per_second": round(reconciles / total, 1),
        "reconcile_duration_p50_ms": round(after.get("reconcile_seconds_p50", 0) * 1000, 1),
        "reconcile_duration_p99_ms": round(after.get("reconcile_seconds_p99", 0) * 1000, 1),
        "operator_rss_kib": rss_kib(op.proc.pid) if op.proc else {},
    }
    for api in apis.values():
        client.CoreV1Api(api).delete_namespace(namespace)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--state-dir", default="/tmp/op-cp")
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--workers", default="4")
    parser.add_argument("--rate", type=float, default=0.0, help="CRs per second (0 = burst)")
    args = parser.parse_args()
    cp = LocalControlPlane(Path(args.state_dir), members=2, nodes_per_member=20)
    started = not cp.is_healthy()
    cp.up()
    kubeconfig = str(cp.kubeconfig_path)
    install_crds(kubeconfig)
    apis = {name: api_client(kubeconfig, name) for name in ("member-a", "member-b")}
    for api in apis.values():
        api.configuration.connection_pool_maxsize = 16
    op = OperatorProcess(
        cp.kubeconfig_path,
        Path(args.state_dir),
        f"bench-{os.getpid()}",
        f"bench-{uuid.uuid4().hex[:6]}",
        "--workers",
        args.workers,
        "--log-level",
        "WARNING",
    )
    op.start()
    results = []
    try:
        wait_for(lambda: op.metrics().get("leading") == 1.0, 30, what="operator leading")
        time.sleep(1)
        for n in (int(s) for s in args.sizes.split(",")):
            result = run_size(n, apis, op, args.rate)
            print(json.dumps(result, indent=2), flush=True)
            results.append(result)
    finally:
        code = op.terminate()
        if started:
            cp.down()
    out = {
        "machine": f"{os.cpu_count()} cores",
        "workers": int(args.workers),
        "operator_exit": code,
        "results": results,
    }
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    (ROOT / "bench" / "results" / "operator.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
