"""Benchmark: federation from the host, end to end, on the local control plane (not a test).

    .venv/bin/python bench/federation.py [--state-dir /tmp/bench-fed-cp] [--workloads 200] [--rate 0]
                                         [--contention-workloads 200] [--contention-fits 50]
                                         [--skip floor|latency|contention]

0. The floor (``ssa_floor.py``): the latency phase's objects, host objects and their shards, server-side applied by
   a plain client before any operator runs; the latency phase's throughput (workloads to all pods Running per
   second) is printed as a fraction of it.

The operator runs as a subprocess with ``--host-context host`` (it is the federation controller too).
Projects are laid out with the core's tenancy manifests (namespace + ProjectQuota on the host, namespace +
quotas on each member) and the members are ``MemberCluster`` objects sized from their nodes.

1. Latency: N small workloads (PinPods; every ``--app-every``-th a 2-replica PinApp sharded over both zones)
   are created on the host by a few client threads, in a project whose grant fits them all. Per workload,
   from its create call returning to: Admitted, Scheduled, every shard on its member(s), a first pod, all
   of its pods Running on the members (pods watched by ``pincompute.io/workload``), and host Ready.
2. Contention: N PinPods at once in a project whose grant fits K of them. Time until the Admitted condition
   is decided for all N (True, or False with reason QuotaExceeded), decisions per second, and the admitted
   total checked after every host watch event (it must never exceed the grant: the run fails if it does).
   Then the K admitted ones (Ready by then) are deleted; time until K waiting ones are admitted.

Also the operator's reconcile counters (/metrics) with reconciles per workload by what queued them, RSS
(VmHWM), and every 0.5 s its queue depth, reconcile rates and CPU time (a timeline: where a backlog builds,
whether the operator is CPU-bound). The wall-clock time of the first create is printed to line the figures up with
the operator log (``--log-level INFO``, next to the state dir). Writes bench/results/federation.json.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kubernetes import client, dynamic  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402
from pods_floor import run_pods_floor  # noqa: E402
from ssa_floor import run_floor  # noqa: E402
from urllib3.exceptions import HTTPError  # noqa: E402

from devtools.localcp import LocalControlPlane  # noqa: E402
from devtools.localcp.nodes import api_client  # noqa: E402
from devtools.operator_process import OperatorProcess, install_crds  # noqa: E402
from devtools.waiting import wait_for  # noqa: E402
from pincompute import GROUP, VERSION  # noqa: E402
from pincompute.federation.admission import QUOTA_EXCEEDED, claim_of  # noqa: E402
from pincompute.federation.members import MemberSpec, member_cluster_manifest  # noqa: E402
from pincompute.grants import Allocation  # noqa: E402
from pincompute.kinds import KINDS  # noqa: E402
from pincompute.kube import rawapi  # noqa: E402
from pincompute.quantity import Resources, parse_cpu, parse_memory  # noqa: E402
from pincompute.runtime import load_profile  # noqa: E402
from pincompute.specs import parse  # noqa: E402
from pincompute.tenancy import Tenant, host_manifests, member_manifests  # noqa: E402
from pincompute.tiers import Tier  # noqa: E402

MEMBERS = ("member-a", "member-b")
ZONES = ["local-1a", "local-1b"]
KIND_OF = {"pp": "PinPod", "app": "PinApp"}
APP = {
    "name": "app",
    "image": "registry.local/bench/app:1",
    "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
}
STAGES = ("admitted", "scheduled", "shards", "first_pod", "running", "ready")


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))] if s else float("nan")


def summary_ms(samples: list[float]) -> dict[str, float]:
    """p50/p90/p99/max in milliseconds (and how many samples)."""
    if not samples:
        return {"n": 0}
    ms = [s * 1000 for s in samples]
    return {
        "n": len(ms),
        **{f"p{p}": round(pct(ms, p), 1) for p in (50, 90, 99)},
        "max": round(max(ms), 1),
    }


def rss_kib(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS", "VmHWM")):
            fields[line.split(":")[0]] = int(line.split()[1])
    return fields


def cpu_seconds(pid: int) -> float:
    """utime + stime of ``pid`` (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Sampler:
    """The operator's queue depth, reconcile counters and CPU time every ``period`` seconds: where a backlog
    builds and whether the operator process is bound by its own CPU (one Python process: at most ~1 core)."""

    def __init__(self, op: OperatorProcess, period: float = 0.5) -> None:
        self.op, self.period = op, period
        self.start = time.monotonic()
        self.rows: list[tuple[float, float, float, float, float]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="sampler")
        self.thread.start()

    def _run(self) -> None:
        pid = self.op.proc.pid if self.op.proc else 0
        while True:
            m = self.op.metrics()
            if m and pid:
                row = (
                    time.monotonic() - self.start,
                    m.get("queue_depth", 0.0),
                    m.get("federation_reconciles", 0.0),
                    m.get("reconciles", 0.0),
                    cpu_seconds(pid),
                )
                self.rows.append(row)
            if self.stop.wait(self.period):
                return

    def close(self) -> dict[str, Any]:
        """Stop; the summary and a timeline in ``step``-second rows (rates over each row)."""
        self.stop.set()
        self.thread.join(5)
        rows = self.rows
        if len(rows) < 2:
            return {}
        wall = rows[-1][0] - rows[0][0]
        cpu = rows[-1][4] - rows[0][4]
        timeline = []
        step = max(1.0, round(wall / 12))
        marks = [rows[0]]
        for row in rows[1:]:
            if row[0] - marks[-1][0] >= step or row is rows[-1]:
                marks.append(row)
        for a, b in itertools.pairwise(marks):
            dt = b[0] - a[0]
            timeline.append(
                {
                    "t": round(b[0], 1),
                    "queue_depth": int(b[1]),
                    "federation_per_s": round((b[2] - a[2]) / dt, 1),
                    "member_per_s": round((b[3] - a[3]) / dt, 1),
                    "operator_cpu_pct": round(100 * (b[4] - a[4]) / dt),
                }
            )
        return {
            "queue_depth_max": int(max(r[1] for r in rows)),
            "operator_cpu_seconds": round(cpu, 1),
            "operator_cpu_pct_of_one_core": round(100 * cpu / wall),
            "timeline": timeline,
        }


def print_timeline(sampled: dict[str, Any]) -> None:
    if not sampled:
        return
    print(
        f"  operator: queue depth max {sampled['queue_depth_max']}, CPU {sampled['operator_cpu_seconds']} s "
        f"({sampled['operator_cpu_pct_of_one_core']} % of one core over the phase)"
    )
    print("  t s   queue  federation/s  member/s  operator CPU %")
    for row in sampled["timeline"]:
        print(
            f"  {row['t']:>5}  {row['queue_depth']:>5}  {row['federation_per_s']:>12}  {row['member_per_s']:>8}"
            f"  {row['operator_cpu_pct']:>14}"
        )


def condition(obj: dict[str, Any], type_: str) -> dict[str, Any]:
    for item in (obj.get("status") or {}).get("conditions") or []:
        if item.get("type") == type_:
            return item
    return {}


def host_ready(obj: dict[str, Any]) -> bool:
    gen = obj["metadata"].get("generation")
    return (
        condition(obj, "Ready").get("status") == "True" and (obj.get("status") or {}).get("observedGeneration") == gen
    )


def manifest(name: str, namespace: str) -> dict[str, Any]:
    kind = KIND_OF[name.split("-")[0]]
    spec: dict[str, Any] = {"project": namespace, "team": "team", "tier": "OnDemand"}
    if kind == "PinApp":
        spec.update(replicas=2, zones=ZONES, template={"containers": [APP]})
    else:
        spec.update(containers=[APP])
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def claim(obj: dict[str, Any]) -> Allocation:
    """What admission counts for ``obj`` (the operator's own arithmetic, with the shipped runtime profile)."""
    return claim_of(parse(obj), datetime.now(UTC), profile=PROFILE).request


PROFILE = load_profile()


# -- cluster plumbing ---------------------------------------------------------------------------------------


def apply_all(api: client.ApiClient, manifests: list[dict[str, Any]]) -> None:
    dyn = dynamic.DynamicClient(api)
    for m in manifests:
        res = dyn.resources.get(api_version=m["apiVersion"], kind=m["kind"])
        dyn.server_side_apply(
            res,
            body=m,
            name=m["metadata"]["name"],
            namespace=m["metadata"].get("namespace"),
            field_manager="bench-federation",
            force_conflicts=True,
        )


def register_members(cp: LocalControlPlane, apis: dict[str, client.ApiClient]) -> None:
    """One MemberCluster per member on the host, pools sized from its nodes' allocatable (as the tests do)."""
    for name in MEMBERS:
        info = cp.cluster(name)
        nodes = client.CoreV1Api(apis[name]).list_node().items
        cpu = sum(parse_cpu(n.status.allocatable.get("cpu", "0")) for n in nodes)
        memory = sum(parse_memory(n.status.allocatable.get("memory", "0")) for n in nodes)
        pools = {
            kind: Resources(int(cpu * share), int(memory * share))
            for kind, share in (("reserved", 0.45), ("ondemand", 0.40), ("burst", 0.10))
        }
        spec = MemberSpec(name, info.region, info.zone, ("general",), pools)
        apply_all(apis["host"], [member_cluster_manifest(spec)])


def make_project(apis: dict[str, client.ApiClient], prefix: str, grant: Allocation) -> str:
    name = f"{prefix}-{uuid.uuid4().hex[:5]}"
    tenant = Tenant(name, name, "team", "CC-1", grants={Tier.ONDEMAND: grant})
    apply_all(apis["host"], host_manifests(tenant))
    for member in MEMBERS:
        apply_all(apis[member], member_manifests(tenant))
    return name


def remove_project(apis: dict[str, client.ApiClient], namespace: str, timeout: float = 300) -> None:
    """Host workloads first (the operator removes their shards, then its finalizer), then the namespaces."""
    custom = client.CustomObjectsApi(apis["host"])
    plurals = [KINDS[k].plural for k in KIND_OF.values()]
    for plural in plurals:
        custom.delete_collection_namespaced_custom_object(GROUP, VERSION, namespace, plural)

    def gone() -> bool:
        return not any(custom.list_namespaced_custom_object(GROUP, VERSION, namespace, p)["items"] for p in plurals)

    wait_for(gone, timeout, interval=1.0, what=f"host workloads of {namespace} removed")
    for name in ("host", *MEMBERS):
        client.CoreV1Api(apis[name]).delete_namespace(namespace)

    def namespaces_gone() -> bool:
        for name in ("host", *MEMBERS):
            try:
                client.CoreV1Api(apis[name]).read_namespace(namespace)
                return False
            except ApiException as exc:
                if exc.status != 404:
                    raise
        return True

    wait_for(namespaces_gone, timeout, interval=1.0, what=f"namespace {namespace} gone")


def leftover_namespaces(apis: dict[str, client.ApiClient]) -> list[str]:
    """The bench's project namespaces still on any cluster (each run removes its own)."""
    names = {
        ns.metadata.name
        for api in apis.values()
        for ns in client.CoreV1Api(api).list_namespace().items
        if ns.metadata.name.startswith("bench-fed-")
    }
    return sorted(names)


class Watcher:
    """One raw watch (no model deserialization), resumed from its last resourceVersion; calls
    ``handle(event_type, obj, monotonic_time)`` from its own thread."""

    def __init__(self, api: client.ApiClient, path: str, handle: Callable[[str, dict[str, Any], float], None]) -> None:
        self.api, self.path, self.handle = api, path, handle
        self.stop = threading.Event()
        self.connected = threading.Event()
        threading.Thread(target=self._run, daemon=True, name=f"watch {path}").start()

    def _run(self) -> None:
        rv = ""
        while not self.stop.is_set():
            try:
                resp = rawapi.open_watch(self.api, self.path, rv, 600, 5)
                self.connected.set()
                for event in rawapi.iter_events(resp):
                    if self.stop.is_set():
                        return
                    obj = event["object"]
                    rv = (obj.get("metadata") or {}).get("resourceVersion") or rv
                    if event["type"] != "BOOKMARK":
                        try:
                            self.handle(event["type"], obj, time.monotonic())
                        except Exception:  # noqa: BLE001 (a handler bug must show, not end the watch)
                            traceback.print_exc()
            except rawapi.WatchGone:
                rv = ""
            except (HTTPError, ApiException, OSError, rawapi.WatchError) as exc:
                if not self.stop.is_set():
                    print(f"  watch {self.path}: {exc!r}; resuming", flush=True)
                    time.sleep(0.5)


def cr_path(namespace: str, kind: str) -> str:
    return f"/apis/{GROUP}/{VERSION}/namespaces/{namespace}/{KINDS[kind].plural}"


# -- 1. latency ---------------------------------------------------------------------------------------------


class LatencyObserver:
    """First-seen times per workload and stage, from watches on the host (workloads) and members (shards, pods)."""

    def __init__(self, apis: dict[str, client.ApiClient], namespace: str, expected: dict[str, tuple[int, int]]) -> None:
        self.expected = expected  # name -> (shards, pods)
        self.times: dict[str, dict[str, float]] = {stage: {} for stage in STAGES}
        self.shards: dict[str, set[str]] = {}
        self.pods: dict[str, dict[str, str]] = {}
        self.lock = threading.Lock()
        self.watchers = []
        for kind in KIND_OF.values():
            self.watchers.append(Watcher(apis["host"], cr_path(namespace, kind), self._host))
            for member in MEMBERS:
                self.watchers.append(Watcher(apis[member], cr_path(namespace, kind), self._shard(member)))
        for member in MEMBERS:
            path = f"/api/v1/namespaces/{namespace}/pods"
            self.watchers.append(Watcher(apis[member], path, self._pod(member)))

    def _seen(self, stage: str, name: str, t: float) -> None:
        self.times[stage].setdefault(name, t)

    def _host(self, _type: str, obj: dict[str, Any], t: float) -> None:
        name = obj["metadata"]["name"]
        with self.lock:
            if condition(obj, "Admitted").get("status") == "True":
                self._seen("admitted", name, t)
            if condition(obj, "Scheduled").get("status") == "True":
                self._seen("scheduled", name, t)
            if host_ready(obj):
                self._seen("ready", name, t)

    def _shard(self, member: str) -> Callable[[str, dict[str, Any], float], None]:
        def handle(type_: str, obj: dict[str, Any], t: float) -> None:
            name = obj["metadata"]["name"]
            with self.lock:
                if type_ == "DELETED" or name not in self.expected:
                    return
                self.shards.setdefault(name, set()).add(member)
                if len(self.shards[name]) >= self.expected[name][0]:
                    self._seen("shards", name, t)

        return handle

    def _pod(self, member: str) -> Callable[[str, dict[str, Any], float], None]:
        def handle(type_: str, obj: dict[str, Any], t: float) -> None:
            name = (obj["metadata"].get("labels") or {}).get("pincompute.io/workload", "")
            if name not in self.expected:
                return
            key = f"{member}/{obj['metadata']['name']}"
            with self.lock:
                pods = self.pods.setdefault(name, {})
                if type_ == "DELETED":
                    pods.pop(key, None)
                    return
                self._seen("first_pod", name, t)
                pods[key] = (obj.get("status") or {}).get("phase", "")
                if sum(phase == "Running" for phase in pods.values()) >= self.expected[name][1]:
                    self._seen("running", name, t)

        return handle

    def close(self) -> None:
        for w in self.watchers:
            w.stop.set()


def members_of(body: dict[str, Any]) -> list[str]:
    """The members the federation places a latency workload on: a two-zone PinApp on both, a PinPod on one."""
    return list(MEMBERS) if body["kind"] == "PinApp" else [MEMBERS[int(body["metadata"]["name"][-4:]) % 2]]


def latency_names(args: argparse.Namespace) -> list[str]:
    return [
        f"app-{i:04d}" if args.app_every and i % args.app_every == 0 else f"pp-{i:04d}" for i in range(args.workloads)
    ]


def run_ssa_floor(args: argparse.Namespace, apis: dict[str, client.ApiClient]) -> dict[str, Any]:
    """The latency phase's objects (host objects and their shards) applied by a plain client, no operator running."""
    names = latency_names(args)
    claims = [claim(manifest(name, "x")) for name in names]
    needed = sum(claims, Allocation())
    grant = Allocation.of(Resources(needed.cpu_milli, needed.memory_bytes), 0)
    namespace = make_project(apis, "bench-fed-floor", grant)
    result = run_floor(apis, [manifest(name, namespace) for name in names], members_of, args.threads)
    print(
        f"floor: {result['workloads']} workloads ({result['objects_applied']} objects: host objects and shards) "
        f"server-side applied by a plain client with {args.threads} threads, no operator: {result['seconds']} s, "
        f"{result['workloads_per_second']} workloads/s ({result['objects_per_second']} objects/s); load "
        f"{os.getloadavg()[0]:.1f}",
        flush=True,
    )
    remove_project(apis, namespace)
    return result


def run_pods_floor_phase(args: argparse.Namespace, apis: dict[str, client.ApiClient], cp: LocalControlPlane) -> dict:
    """The latency phase's shards as the members' native objects, written by a plain client: to all pods Running."""
    names = latency_names(args)
    needed = sum((claim(manifest(name, "x")) for name in names), Allocation())
    grant = Allocation.of(Resources(needed.cpu_milli * 2, needed.memory_bytes * 2), 0)
    namespace = make_project(apis, "bench-fed-pods", grant)
    manifests = [manifest(name, namespace) for name in names]
    zones = {member: cp.cluster(member).zone for member in MEMBERS}
    result = run_pods_floor(
        apis,
        manifests,
        members_of,
        zones,
        lambda body: int(body["spec"].get("replicas") or 1),
        PROFILE,
        args.threads,
        timeout=120 + len(names),
        rate=args.rate,
        summary=summary_ms,
    )
    pace = f"{args.rate}/s" if args.rate else "a burst"
    print(
        f"pods floor: {result['workloads']} workloads ({result['objects_written']} member objects, {result['pods']} "
        f"pods) written by a plain client ({pace}, {args.threads} threads), no operator: written in "
        f"{result['write_seconds']} s, all pods Running after {result['seconds_to_all_running']} s = "
        f"{result['workloads_per_second']} workloads/s; a workload's first write -> all its pods Running "
        f"{_fmt(result['latency_ms'])}; the burst's first write -> them {_fmt(result['from_first_write_ms'])}; "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    for kind, latency in result["latency_ms_by_kind"].items():
        print(f"  pods floor, {kind}: first write -> all pods Running {_fmt(latency)}", flush=True)
    remove_project(apis, namespace)
    return result


def run_latency(args: argparse.Namespace, apis: dict[str, client.ApiClient], op: OperatorProcess) -> dict[str, Any]:
    n = args.workloads
    names = latency_names(args)
    claims = [claim(manifest(name, "x")) for name in names]
    needed = sum(claims, Allocation())
    grant = Allocation.of(Resources(needed.cpu_milli * 2, needed.memory_bytes * 2), 0)
    namespace = make_project(apis, "bench-fed-lat", grant)
    expected = {name: ((2, 2) if name.startswith("app-") else (1, 1)) for name in names}
    observer = LatencyObserver(apis, namespace, expected)
    wait_for(lambda: all(w.connected.is_set() for w in observer.watchers), 30, what="watches connected")
    time.sleep(0.5)
    custom = client.CustomObjectsApi(apis["host"])
    created: dict[str, float] = {}
    before = op.metrics()
    sampler = Sampler(op)

    def create(name: str) -> None:
        body = manifest(name, namespace)
        custom.create_namespaced_custom_object(GROUP, VERSION, namespace, KINDS[body["kind"]].plural, body)
        created[name] = time.monotonic()

    print(f"latency: {n} workloads ({sum(e[1] for e in expected.values())} pods) in {namespace}", flush=True)
    start, started_at = time.monotonic(), datetime.now().astimezone().isoformat(timespec="milliseconds")
    print(f"  first create at {started_at} (compare with the operator log's timestamps)", flush=True)
    with ThreadPoolExecutor(args.threads) as pool:
        if args.rate:  # paced: the i-th create starts i / rate seconds after the first
            for i, name in enumerate(names):
                time.sleep(max(0.0, start + i / args.rate - time.monotonic()))
                pool.submit(create, name)
        else:
            list(pool.map(create, names))
    create_seconds = time.monotonic() - start

    def done() -> bool:
        return len(observer.times["running"]) >= n and len(observer.times["ready"]) >= n

    try:
        wait_for(done, timeout=120 + n, interval=0.2, what=f"{n} workloads Running and Ready")
    finally:
        observer.close()
    total = time.monotonic() - start
    after = op.metrics()
    sampled = sampler.close()
    stages = {
        stage: summary_ms(
            [observer.times[stage][name] - created[name] for name in names if name in observer.times[stage]]
        )
        for stage in STAGES
    }
    by_kind = {
        kind: {
            stage: summary_ms([observer.times[stage][nm] - created[nm] for nm in names if nm.startswith(prefix)])
            for stage in ("running", "ready")
        }
        for prefix, kind in KIND_OF.items()
    }
    last = max(max(observer.times["running"].values()), max(observer.times["ready"].values()))
    last_running = max(observer.times["running"].values())
    result = {
        "workloads": n,
        "pinpods": sum(nm.startswith("pp-") for nm in names),
        "pinapps": sum(nm.startswith("app-") for nm in names),
        "pods": sum(e[1] for e in expected.values()),
        "client_threads": args.threads,
        "first_create_at": started_at,
        "create_seconds": round(create_seconds, 2),
        "creates_per_second": round(n / create_seconds, 1),
        "wall_seconds_first_create_to_last_ready": round(last - start, 2),
        "wall_seconds_first_create_to_last_running": round(last_running - start, 2),
        "workloads_running_per_second": round(n / (last_running - start), 1),
        "load_average": [round(x, 1) for x in os.getloadavg()],
        "latency_from_create_returned_ms": stages,
        "running_from_first_create_ms": summary_ms([observer.times["running"][nm] - start for nm in names]),
        "by_kind_ms": by_kind,
        **counters(before, after, total),
        "operator_rss_kib": rss_kib(op.proc.pid) if op.proc else {},
        "operator": sampled,
        "namespace": namespace,
    }
    print_latency(result)
    print_timeline(sampled)
    return result


def counters(before: dict[str, float], after: dict[str, float], seconds: float) -> dict[str, Any]:
    def diff(key: str) -> int:
        return int(after.get(key, 0) - before.get(key, 0))

    causes = sorted({k for k in after if k.startswith(("cause:", "ignored:"))})
    return {
        "by_cause": {k: diff(k) for k in causes if diff(k)},
        "federation_reconciles": diff("federation_reconciles"),
        "member_reconciles": diff("reconciles"),
        "writes": diff("writes"),
        "conflicts": diff("conflicts"),
        "errors_temporary": diff("errors_temporary"),
        "errors_permanent": diff("errors_permanent"),
        "reconciles_per_second": round((diff("federation_reconciles") + diff("reconciles")) / seconds, 1),
        "reconcile_duration_p50_ms": round(after.get("reconcile_seconds_p50", 0) * 1000, 1),
        "reconcile_duration_p99_ms": round(after.get("reconcile_seconds_p99", 0) * 1000, 1),
    }


def print_latency(r: dict[str, Any]) -> None:
    print(
        f"  created {r['workloads']} ({r['pinpods']} PinPods, {r['pinapps']} PinApps, {r['pods']} pods) in "
        f"{r['create_seconds']} s ({r['creates_per_second']}/s); all Running + Ready "
        f"{r['wall_seconds_first_create_to_last_ready']} s after the first create"
    )
    print(f"  the first create -> all pods Running: {_fmt(r['running_from_first_create_ms'])}")
    print("  create returned -> stage      p50 ms    p90 ms    p99 ms    max ms")
    for stage, s in r["latency_from_create_returned_ms"].items():
        if s.get("n"):
            print(f"    {stage:<26}{s['p50']:>8}  {s['p90']:>8}  {s['p99']:>8}  {s['max']:>8}")
    for kind, stages in r["by_kind_ms"].items():
        for stage, s in stages.items():
            if s.get("n"):
                print(f"    {kind} {stage:<19}{s['p50']:>8}  {s['p90']:>8}  {s['p99']:>8}  {s['max']:>8}")
    print(
        f"  reconciles: federation {r['federation_reconciles']}, member {r['member_reconciles']} "
        f"({r['reconciles_per_second']}/s), writes {r['writes']}, conflicts {r['conflicts']}, "
        f"errors {r['errors_temporary']}+{r['errors_permanent']}; one reconcile p50 "
        f"{r['reconcile_duration_p50_ms']} / p99 {r['reconcile_duration_p99_ms']} ms; RSS {r['operator_rss_kib']}",
        flush=True,
    )
    print_causes(r["by_cause"], r["workloads"])


def print_causes(by_cause: dict[str, int], workloads: int) -> None:
    """Reconciles per workload by what queued them (federation: the host workload's key; member: its shards'; admission:
    the project's key), and the watch events that queued nothing."""
    for prefix, title in (("cause:", "reconciles per workload by cause"), ("ignored:", "events ignored per workload")):
        rows = {k.removeprefix(prefix): v for k, v in by_cause.items() if k.startswith(prefix)}
        for controller in sorted({k.split(":")[0] for k in rows}):
            mine = {k.split(":", 1)[1]: v for k, v in rows.items() if k.startswith(controller + ":")}
            ranked = sorted(mine.items(), key=lambda kv: -kv[1])
            parts = ", ".join(f"{cause} {v / workloads:.2f}" for cause, v in ranked)
            print(f"  {title}, {controller}: {sum(mine.values()) / workloads:.2f} ({parts})")


# -- 2. admission under contention --------------------------------------------------------------------------


class AdmissionObserver:
    """The host's PinPods of one project, as the watch delivers them; after every event the admitted total is
    checked against the grant. One kind, so one watch: events arrive in resourceVersion order, and the
    admitter only admits a waiting workload after the freed one's DELETED event (an earlier version)."""

    def __init__(self, api: client.ApiClient, namespace: str, grant: Allocation) -> None:
        self.grant = grant
        self.objects: dict[str, dict[str, Any]] = {}
        self.claims: dict[str, Allocation] = {}
        self.decided: dict[str, float] = {}
        self.admitted_at: dict[str, float] = {}
        self.ready: dict[str, float] = {}
        self.gone: dict[str, float] = {}
        self.max_held = Allocation()
        self.max_admitted = 0
        self.violations: list[str] = []
        self.lock = threading.Lock()
        self.watcher = Watcher(api, cr_path(namespace, "PinPod"), self._handle)

    def _handle(self, type_: str, obj: dict[str, Any], t: float) -> None:
        name = obj["metadata"]["name"]
        with self.lock:
            if type_ == "DELETED":
                self.objects.pop(name, None)
                self.gone.setdefault(name, t)
                return
            self.objects[name] = obj
            if name not in self.claims:
                self.claims[name] = claim(obj)
            admitted = condition(obj, "Admitted")
            if admitted.get("status") == "True":
                self.decided.setdefault(name, t)
                self.admitted_at.setdefault(name, t)
            elif admitted.get("status") == "False" and admitted.get("reason") == QUOTA_EXCEEDED:
                self.decided.setdefault(name, t)
            if host_ready(obj):
                self.ready.setdefault(name, t)
            holders = [n for n, o in self.objects.items() if condition(o, "Admitted").get("status") == "True"]
            held = sum((self.claims[n] for n in holders), Allocation())
            self.max_admitted = max(self.max_admitted, len(holders))
            peak, now = self.max_held.to_json(), held.to_json()
            self.max_held = Allocation.from_json({key: max(peak[key], now[key]) for key in peak})
            over = [k for k, v in held.amounts().items() if k != "pods" and v > self.grant.amounts()[k]]
            if over:
                self.violations.append(
                    f"{len(holders)} admitted hold {held.describe()} > grant {self.grant.describe()}"
                )

    def admitted_now(self) -> list[str]:
        with self.lock:
            return [n for n, o in self.objects.items() if condition(o, "Admitted").get("status") == "True"]


def run_contention(args: argparse.Namespace, apis: dict[str, client.ApiClient], op: OperatorProcess) -> dict[str, Any]:
    n, k = args.contention_workloads, args.contention_fits
    names = [f"pp-{i:04d}" for i in range(n)]
    one = claim(manifest(names[0], "x"))
    grant = Allocation.of(Resources(one.cpu_milli * k, one.memory_bytes * k), 0)
    namespace = make_project(apis, "bench-fed-adm", grant)
    observer = AdmissionObserver(apis["host"], namespace, grant)
    wait_for(observer.watcher.connected.is_set, 30, what="watch connected")
    time.sleep(0.5)
    custom = client.CustomObjectsApi(apis["host"])
    created: dict[str, float] = {}
    before = op.metrics()
    sampler = Sampler(op)

    def create(name: str) -> None:
        body = manifest(name, namespace)
        custom.create_namespaced_custom_object(GROUP, VERSION, namespace, "pinpods", body)
        created[name] = time.monotonic()

    print(f"contention: {n} PinPods of {one.describe()} each, grant {grant.describe()} (fits {k}) in {namespace}")
    start, started_at = time.monotonic(), datetime.now().astimezone().isoformat(timespec="milliseconds")
    print(f"  first create at {started_at} (compare with the operator log's timestamps)", flush=True)
    with ThreadPoolExecutor(args.threads) as pool:
        list(pool.map(create, names))
    create_seconds = time.monotonic() - start
    wait_for(lambda: len(observer.decided) >= n, 120 + n, interval=0.1, what=f"{n} admission decisions")
    decided_seconds = max(observer.decided.values()) - start
    first_admitted = sorted(observer.admitted_now())
    after_decisions = op.metrics()
    decide_lat = [observer.decided[nm] - created[nm] for nm in names]

    # the admitted ones run; once Ready they are deleted, and as many waiting ones must be admitted
    wait_for(lambda: all(nm in observer.ready for nm in first_admitted), 120 + k, what=f"{k} admitted Ready")
    waiting = [nm for nm in names if nm not in first_admitted]
    t0 = time.monotonic()
    with ThreadPoolExecutor(args.threads) as pool:
        list(
            pool.map(
                lambda nm: custom.delete_namespaced_custom_object(GROUP, VERSION, namespace, "pinpods", nm),
                first_admitted,
            )
        )
    delete_seconds = time.monotonic() - t0
    refill = min(len(first_admitted), len(waiting))

    def refilled() -> bool:
        return sum(nm in observer.admitted_at for nm in waiting) >= refill

    wait_for(refilled, 120 + k, interval=0.1, what=f"{refill} waiting admitted")
    freed_lat = [observer.gone[nm] - t0 for nm in first_admitted if nm in observer.gone]
    refill_lat = sorted(observer.admitted_at[nm] - t0 for nm in waiting if nm in observer.admitted_at)
    after = op.metrics()
    sampled = sampler.close()
    observer.watcher.stop.set()

    # a fresh LIST as well: the admitted total as the apiserver holds it now
    items = custom.list_namespaced_custom_object(GROUP, VERSION, namespace, "pinpods")["items"]
    admitted_items = [o for o in items if condition(o, "Admitted").get("status") == "True"]
    held_now = sum((claim(o) for o in admitted_items), Allocation())
    result = {
        "workloads": n,
        "fits": k,
        "claim_each": one.describe(),
        "grant": grant.describe(),
        "client_threads": args.threads,
        "first_create_at": started_at,
        "create_seconds": round(create_seconds, 2),
        "all_decided_seconds_after_first_create": round(decided_seconds, 2),
        "decisions_per_second": round(n / decided_seconds, 1),
        "create_returned_to_decided_ms": summary_ms(decide_lat),
        "admitted_first": len(first_admitted),
        "max_admitted_at_once": observer.max_admitted,
        "max_held": observer.max_held.describe(),
        "grant_exceeded": observer.violations[:5],
        "delete_calls_seconds": round(delete_seconds, 2),
        "delete_started_to_host_object_gone_ms": summary_ms(freed_lat),
        "delete_started_to_waiting_admitted_ms": summary_ms(refill_lat[:refill]),
        "refill_admitted": refill,
        "admitted_after_refill_list": len(admitted_items),
        "held_after_refill_list": held_now.describe(),
        "decision_phase": counters(before, after_decisions, decided_seconds),
        "whole_phase": counters(before, after, time.monotonic() - start),
        "operator": sampled,
        "operator_rss_kib": rss_kib(op.proc.pid) if op.proc else {},
        "namespace": namespace,
    }
    print(
        f"  created in {result['create_seconds']} s; all {n} decided {result['all_decided_seconds_after_first_create']}"
        f" s after the first create: {result['decisions_per_second']} decisions/s; create returned -> decided "
        f"{_fmt(result['create_returned_to_decided_ms'])}\n"
        f"  admitted {len(first_admitted)} of {n}; at most {observer.max_admitted} admitted at once, holding at most "
        f"{result['max_held']} (grant {result['grant']}): "
        f"{'EXCEEDED ' + str(observer.violations[:3]) if observer.violations else 'never exceeded'}\n"
        f"  deleted the {len(first_admitted)} admitted (calls {delete_seconds:.2f} s): host objects gone "
        f"{_fmt(result['delete_started_to_host_object_gone_ms'])}; {refill} waiting admitted "
        f"{_fmt(result['delete_started_to_waiting_admitted_ms'])} after the deletes started\n"
        f"  LIST after: {len(admitted_items)} admitted holding {held_now.describe()}\n"
        f"  reconciles while deciding: federation {result['decision_phase']['federation_reconciles']}, member "
        f"{result['decision_phase']['member_reconciles']}, conflicts {result['decision_phase']['conflicts']}; RSS "
        f"{result['operator_rss_kib']}",
        flush=True,
    )
    print_timeline(sampled)
    over_list = [k for k, v in held_now.amounts().items() if k != "pods" and v > grant.amounts()[k]]
    if observer.violations or over_list or observer.max_admitted > k:
        raise SystemExit(f"ADMISSION EXCEEDED THE GRANT: {observer.violations[:5]} {over_list}")
    return result


def _fmt(s: dict[str, float]) -> str:
    return (
        f"p50 {s['p50']:.0f} / p90 {s['p90']:.0f} / p99 {s['p99']:.0f} / max {s['max']:.0f} ms" if s.get("n") else "-"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--state-dir", default="/tmp/bench-fed-cp")
    parser.add_argument("--nodes", type=int, default=8, help="kwok nodes per member")
    parser.add_argument("--workloads", type=int, default=200, help="latency: workloads created on the host")
    parser.add_argument("--app-every", type=int, default=5, help="latency: every Nth workload is a 2-replica PinApp")
    parser.add_argument("--contention-workloads", type=int, default=200)
    parser.add_argument("--contention-fits", type=int, default=50, help="how many of them the grant fits")
    parser.add_argument("--threads", type=int, default=8, help="client threads creating workloads")
    parser.add_argument("--rate", type=float, default=0.0, help="latency: creates per second (0: a burst)")
    parser.add_argument("--workers", default="4", help="operator --workers")
    parser.add_argument("--log-level", default="INFO", help="operator --log-level")
    parser.add_argument("--skip", choices=("floor", "pods-floor", "latency", "contention"), action="append", default=[])
    args = parser.parse_args()
    state_dir = Path(args.state_dir)
    cp = LocalControlPlane(state_dir, members=2, nodes_per_member=args.nodes)
    started = not cp.is_healthy()
    cp.up()
    kubeconfig = str(cp.kubeconfig_path)
    install_crds(kubeconfig, MEMBERS, host="host")
    apis = {name: api_client(kubeconfig, name) for name in ("host", *MEMBERS)}
    for api in apis.values():
        api.configuration.connection_pool_maxsize = 32
    leftovers = leftover_namespaces(apis)
    if leftovers:  # an interrupted run's workloads would take nodes and operator time from this one
        if started:
            cp.down()
        sys.exit(
            f"{', '.join(leftovers)} left by an interrupted run in {state_dir} (its etcd keeps them): stop that "
            f"control plane and start afresh (.venv/bin/python -m devtools.localcp --state-dir {state_dir} down; "
            f"rm -rf {state_dir}), or pass another --state-dir"
        )
    register_members(cp, apis)
    results: dict[str, Any] = {}
    if "floor" not in args.skip:
        results["floor"] = run_ssa_floor(args, apis)
    if "pods-floor" not in args.skip:
        results["pods_floor"] = run_pods_floor_phase(args, apis, cp)
    op = OperatorProcess(
        cp.kubeconfig_path,
        state_dir,
        f"bench-fed-{os.getpid()}",
        f"bench-fed-{uuid.uuid4().hex[:6]}",
        "--workers",
        args.workers,
        "--log-level",
        args.log_level,
        federation=True,
    )
    op.start()
    print(f"operator log: {op.log_path}", flush=True)
    code = None
    try:
        wait_for(lambda: op.metrics().get("leading") == 1.0, 60, what="operator leading")
        time.sleep(2)
        if "latency" not in args.skip:
            results["latency"] = run_latency(args, apis, op)
            fed = results["latency"]["workloads_running_per_second"]
            if "floor" in results:
                floor = results["floor"]["workloads_per_second"]
                results["fraction_of_floor"] = round(fed / floor, 3)
                print(
                    f"  federation: {fed} workloads/s to all pods Running = {100 * fed / floor:.0f} % of the floor "
                    f"({floor} workloads/s applied with no operator)",
                    flush=True,
                )
            if "pods_floor" in results:
                pods_floor = results["pods_floor"]["workloads_per_second"]
                results["fraction_of_pods_floor"] = round(fed / pods_floor, 3)
                print(
                    f"  federation: {100 * fed / pods_floor:.0f} % of the pods floor ({pods_floor} workloads/s to all "
                    "pods Running with the members' objects written by a plain client)",
                    flush=True,
                )
            remove_project(apis, results["latency"]["namespace"])
        if "contention" not in args.skip:
            results["contention"] = run_contention(args, apis, op)
            remove_project(apis, results["contention"]["namespace"])  # the state dir's etcd outlives a stop
    finally:
        code = op.terminate()
        if started:
            cp.down()
    out = {
        "machine": f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end",
        "nodes_per_member": args.nodes,
        "operator_workers": int(args.workers),
        "operator_log_level": args.log_level,
        "operator_exit": code,
        **results,
    }
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    (ROOT / "bench" / "results" / "federation.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
