"""Benchmark: the read path at the seed's scale, 10k workloads and 100k pods (not a test).

    .venv/bin/python bench/read_path.py [--state-dir /tmp/bench-readpath-cp] [--workloads 10000] [--pods 100000]
                                        [--nodes 20] [--threads 16] [--reps 300] [--lag-writes 200]
                                        [--create-timeout 2400] [--synthetic-to 100000] [--keep] [--reuse] [--add]
                                        [--backing worker|eager]

One run on a local control plane of its own (host + 1 member with kwok nodes; started in --state-dir, and
stopped at the end, unless one already runs there). The portal's database is set up in this process
(``bench/provisioning.py``'s ``setup_portal``) on production's backing by default (PostgreSQL through psycopg's
pool, Redis for the cache and throttles, a Celery worker; ``--backing eager``: the embedded default's SQLite,
in-memory cache and inline tasks) and one project is onboarded through its service; the portal then serves HTTP
in a process of its own, as production runs it (``uvicorn console.asgi:application``, one worker, DEBUG off, its
own watch caches), not in a thread sharing this process's GIL with the bench's watch caches and client. Then:

1. 10k workload objects are written to the project's namespace on the host as the portal and the federation
   leave them (``hostobjects.py``: the submission service's manifest of the catalog's example, POSTed with the
   portal's field manager by --threads threads; each then gets the status the federation's pure functions
   build, through the status subresource; no operator runs), and 100k pods to the same namespace on the member
   (raw POSTs with ``spec.nodeName`` set to kwok nodes, which mark them Running). Creation stops at
   --create-timeout; what exists is measured, and the run says so.
2. Once the portal's caches hold them (its ``/metrics``): the API's list (real HTTP with an API token) for pages
   of 100 workloads (``/api/v1/projects/<p>/workloads/``) and of 100 pods (``/api/v1/projects/<p>/pods/``),
   walking the ``next`` links, against a direct apiserver LIST of the same page size walking ``continue``: the
   same client (httpx, keep-alive, the body parsed), --reps pages on every side, taken in turn, so that the
   machine's noise hits both and p99 means the same thing; p50/p99 and the bytes per object served against the
   raw object's.
3. Cache memory per pod: tracemalloc of the portal's store filled with every pod of a raw LIST (as the watch
   cache's relist does), and, for comparison, of the previous slimmed-only store for the first 10k; the portal
   process's RSS.
4. Watch lag at that size: --lag-writes sequential annotation patches, from the write's start (and from its
   acknowledgement) until a member cache (the portal's code, in the bench process) shows it; and a new cache's
   cold start to synced.

Prints the figures and writes bench/results/read_path.json. Deletes the project's namespaces at the end.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import hostobjects  # noqa: E402
from provisioning import Backing, provisioned_everywhere, setup_portal  # noqa: E402

from devtools.localcp import LocalControlPlane  # noqa: E402
from devtools.waiting import wait_for  # noqa: E402

PROJECT = "bench-rp"
NS = f"proj-{PROJECT}"
RESULTS = ROOT / "bench" / "results" / "read_path.json"
AUTH = ["BearerToken"]
APP = {
    "name": "app",
    "image": "registry.local/bench/app:1",
    "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
}


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))] if s else float("nan")


def summary(ms: list[float]) -> dict[str, float]:
    return {"p50_ms": round(pct(ms, 50), 2), "p99_ms": round(pct(ms, 99), 2), "max_ms": round(max(ms), 2), "n": len(ms)}


# -- objects --------------------------------------------------------------------------------------------------


def pod_body(i: int, node: str) -> dict[str, Any]:
    workload = f"wl-{i % 10_000:05d}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{workload}-{i:06d}",
            "labels": {
                "pincompute.io/project": PROJECT,
                "pincompute.io/workload": workload,
                "pincompute.io/kind": "PinApp" if i % 3 == 0 else "PinPod",
                "app.kubernetes.io/name": workload,
                "pods.pinconsole.dev/sandbox": "off",  # never exec'd into: no per-pod sandbox for 100k of them
            },
            "annotations": {"pincompute.io/cost-center": "CC-0001"},
        },
        "spec": {
            "nodeName": node,
            "containers": [
                {
                    "name": "app",
                    "image": "registry.local/bench/app:1",
                    "ports": [{"containerPort": 8080}],
                    "env": [
                        {"name": "PINCOMPUTE_PROJECT", "value": PROJECT},
                        {"name": "PINCOMPUTE_TIER", "value": "ondemand"},
                    ],
                    "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}, "limits": {"memory": "64Mi"}},
                }
            ],
            "tolerations": [{"operator": "Exists"}],
        },
    }


def post_all(
    api: Any, path: Callable[[int], str], body: Callable[[int], dict[str, Any]], n: int, threads: int, deadline: float
) -> tuple[int, float]:
    """POST ``n`` objects (409: already there); stops at ``deadline``. (created, per second)."""
    from kubernetes.client.exceptions import ApiException

    done = threading.Event()
    count = [0]
    lock = threading.Lock()

    def post(i: int) -> None:
        if done.is_set() or time.monotonic() > deadline:
            done.set()
            return
        try:
            resp = api.call_api(
                path(i), "POST", body=body(i), auth_settings=AUTH, _preload_content=False, _return_http_data_only=True
            )
            _ = resp.data  # read before release: an unread body poisons the pooled connection
            resp.release_conn()
        except ApiException as exc:
            if exc.status != 409:
                raise
        with lock:
            count[0] += 1
            if count[0] % 10_000 == 0:
                print(f"  {count[0]} posted", flush=True)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(threads) as ex:
        list(ex.map(post, range(n)))
    return count[0], count[0] / (time.perf_counter() - t0)


def patch_status(api: Any, path: str, body: dict[str, Any]) -> None:
    resp = api.call_api(
        path,
        "PATCH",
        body=body,
        header_params={"Content-Type": "application/merge-patch+json"},
        auth_settings=AUTH,
        _preload_content=False,
        _return_http_data_only=True,
    )
    _ = resp.data
    resp.release_conn()


# -- the portal over HTTP ---------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Portal:
    """The portal in a process of its own, as production runs it (``deploy/``: one uvicorn worker per web pod, with
    its own watch caches): not a thread of the bench, whose watch caches and creation threads would share its GIL.
    Same database and clusters as the bench (the environment ``Backing`` set), production settings (DEBUG off)."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.metrics_token = os.urandom(16).hex()
        self.log = workdir / "portal.log"
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "DEBUG": "false",
            "SECRET_KEY": os.urandom(32).hex(),
            "ALLOWED_HOSTS": "127.0.0.1",
            "SECURE_SSL_REDIRECT": "false",
            "SECURE_HSTS_SECONDS": "0",
            "METRICS_TOKEN": self.metrics_token,
        }
        args = ["--host", "127.0.0.1", "--port", str(self.port), "--no-server-header", "--log-level", "warning"]
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "console.asgi:application", *args, "--ws-per-message-deflate=false"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_for(self._listening, timeout=120, interval=0.2, what=f"the portal listening (log: {self.log})")

    def _listening(self) -> bool:
        if self.proc.poll() is not None:
            raise RuntimeError(f"the portal exited ({self.proc.returncode}): {self.log.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def cached(self, client: Any) -> dict[str, float]:
        """Objects in the portal process's watch caches by kind, summed over clusters (its ``/metrics``); none while
        it cannot answer (a relist of 100k pods holds its GIL for seconds: uvicorn drops idle keep-alive connections
        after 5 s, and a poll can meet a dropped one)."""
        import httpx

        try:
            resp = client.get(f"{self.base}/metrics", headers={"Authorization": f"Bearer {self.metrics_token}"})
        except httpx.TransportError:
            return {}
        assert resp.status_code == 200, resp.text[:300]
        counts: dict[str, float] = {}
        for line in resp.text.splitlines():
            if line.startswith("pinconsole_watch_cache_objects{"):
                kind = line.split('kind="', 1)[1].split('"', 1)[0]
                counts[kind] = counts.get(kind, 0) + float(line.rsplit(" ", 1)[1])
        return counts

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
        return float("nan")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)


def direct_client(api: Any) -> Any:
    """An httpx client to the apiserver behind the kubernetes ApiClient ``api`` (its CA, client certificate or
    token): the same HTTP client, with the same habits (keep-alive, JSON parsed), as the portal's side."""
    import ssl

    import httpx

    conf = api.configuration
    verify: Any = ssl.create_default_context(cafile=conf.ssl_ca_cert) if conf.ssl_ca_cert else conf.verify_ssl
    cert = (conf.cert_file, conf.key_file) if conf.cert_file else None
    headers = {"Authorization": conf.api_key["authorization"]} if conf.api_key.get("authorization") else {}
    return httpx.Client(base_url=conf.host, verify=verify, cert=cert, headers=headers, timeout=120)


def timed_get(client: Any, url: str) -> tuple[Any, Any, float]:
    """(response, parsed body, ms) of one GET parsed as a client would. The client's own cyclic GC is not the
    server's time: none runs inside the timed request (it would walk the bench's caches, 100k pods in a creating
    run: that inflated both sides, the direct LIST's 420 KB pages most), the garbage is collected after, untimed."""
    gc.disable()
    try:
        t0 = time.perf_counter()
        resp = client.get(url)
        body = resp.json()
        ms = (time.perf_counter() - t0) * 1000
    finally:
        gc.enable()
    gc.collect(1)
    assert resp.status_code == 200, resp.text[:300]
    return resp, body, ms


class Walk:
    """One side's walk through a list: GETs following ``next`` (the API) or ``continue`` (a direct LIST), the page
    parsed as a client would; times (ms), body sizes and objects seen."""

    def __init__(self, client: Any, first: str, *, direct: bool) -> None:
        self.client, self.first, self.direct = client, first, direct
        self.url, self.cont = first, None
        self.times: list[float] = []
        self.sizes: list[int] = []
        self.objects = 0

    def step(self, record: bool = True) -> None:
        url = f"{self.first}&continue={quote(self.cont)}" if self.direct and self.cont else self.url
        resp, body, ms = timed_get(self.client, url)
        items = (body.get("items") or []) if self.direct else body["results"]
        if self.direct:
            self.cont = (body.get("metadata") or {}).get("continue") or None
        else:
            self.url = body["next"] or self.first
        if record:
            self.times.append(ms)
            self.sizes.append(len(resp.content))
            self.objects += len(items)

    def result(self) -> tuple[list[float], list[int], int]:
        return self.times, self.sizes, self.objects


def interleaved(walks: list[Walk], reps: int, warmup: int = 20) -> None:
    """``reps`` pages of each walk, taken in turn (the order rotating each round), so that whatever else the machine
    does hits every side alike; ``warmup`` unrecorded rounds first (connections, imports, first reads)."""
    for i in range(warmup + reps):
        shift = i % len(walks)
        for walk in walks[shift:] + walks[:shift]:
            walk.step(record=i >= warmup)


def one_workload(client: Any, to_member: Any, base: str, workloads: int, reps: int) -> dict[str, Any]:
    """The pods of one workload (10 of the 100k), a different workload each time, in turn: the API's ``workload``
    filter (the caches' label index) against the apiserver's label selector (which scans the namespace)."""
    api, direct = [], []
    for i in range(reps + 5):
        wl = f"wl-{(i * 7919) % workloads:05d}"
        _, body, api_ms = timed_get(client, f"{base}/api/v1/projects/{PROJECT}/pods/?workload={wl}&limit=100")
        selector = f"/api/v1/namespaces/{NS}/pods?labelSelector={quote(f'pincompute.io/workload={wl}')}&limit=100"
        _, raw, direct_ms = timed_get(to_member, selector)
        items = len(raw["items"])
        while cont := (raw.get("metadata") or {}).get("continue"):  # a client follows it to get them all
            _, raw, more_ms = timed_get(to_member, f"{selector}&continue={quote(cont)}")
            items, direct_ms = items + len(raw["items"]), direct_ms + more_ms
        assert len(body["results"]) == items, (wl, len(body["results"]), items)
        if i >= 5:
            api.append(api_ms)
            direct.append(direct_ms)
    a, d = summary(api), summary(direct)
    return {
        "api": a,
        "direct_list": d,
        "ratio_p50": round(d["p50_ms"] / a["p50_ms"], 1),
        "ratio_p99": round(d["p99_ms"] / a["p99_ms"], 1),
    }


def compare(api_walk: tuple[list[float], list[int], int], direct: tuple[list[float], list[int], int]) -> dict[str, Any]:
    a, d = summary(api_walk[0]), summary(direct[0])
    api_per, raw_per = sum(api_walk[1]) / max(api_walk[2], 1), sum(direct[1]) / max(direct[2], 1)
    return {
        "api": a,
        "direct_list": d,
        "ratio_p50": round(d["p50_ms"] / a["p50_ms"], 1),
        "ratio_p99": round(d["p99_ms"] / a["p99_ms"], 1),
        "bytes_per_object_api": round(api_per),
        "bytes_per_object_raw": round(raw_per),
        "bytes_served_vs_raw": round(api_per / raw_per, 3),
    }


# -- memory and lag ---------------------------------------------------------------------------------------------


def raw_pods(api: Any) -> list[bytes]:
    from pincompute.kube import rawapi

    pages, cont = [], None
    while True:
        query = [("limit", "5000")] + ([("continue", cont)] if cont else [])
        resp = rawapi.open_get(api, f"/api/v1/namespaces/{NS}/pods", query, (3, 300))
        data = resp.data
        resp.release_conn()
        pages.append(data)
        cont = (json.loads(data).get("metadata") or {}).get("continue")
        if not cont:
            return pages


def clones(pages: list[bytes], total: int) -> list[dict[str, Any]]:
    """``total`` pods cloned from the real ones, each with what is unique to a real pod made unique again (name,
    uid, resourceVersion, IP) and start times spread at 200 pods a second as kwok starts them: so the compact
    store shares no more between clones than between real pods."""
    real = [item for data in pages for item in json.loads(data)["items"]]
    out = []
    for j in range(total):
        pod = json.loads(json.dumps(real[j % len(real)]))
        meta, status = pod["metadata"], pod.setdefault("status", {})
        meta |= {"name": f"{meta['name']}-s{j:06d}", "uid": f"{j:08x}-5e1f-4c0d-9a7b-{j:012x}"}
        meta["resourceVersion"] = str(10_000_000 + j)
        moment = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_800_000_000 + j // 200))
        status |= {"podIP": f"10.{j >> 16 & 255}.{j >> 8 & 255}.{j & 255}", "startTime": moment}
        for cs in status.get("containerStatuses") or []:
            if "running" in (cs.get("state") or {}):
                cs["state"] = {"running": {"startedAt": moment}}
        pod["kind"], pod["apiVersion"] = "Pod", "v1"
        out.append(pod)
    return out


def store_memory(pages: list[bytes], make_store: Callable[[], Any], limit: int | None = None) -> dict[str, Any]:
    """tracemalloc of a store holding the pods parsed from ``pages`` (what a relist builds)."""
    gc.collect()
    tracemalloc.start()
    items: list[dict[str, Any]] = []
    for data in pages:
        for item in json.loads(data)["items"]:
            item["kind"], item["apiVersion"] = "Pod", "v1"
            items.append(item)
        if limit is not None and len(items) >= limit:
            break
    items = items[:limit] if limit is not None else items
    store = make_store()
    t0 = time.perf_counter()
    store.replace("pods", items)
    replace_s = time.perf_counter() - t0
    del items
    gc.collect()
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    n = store.count("pods")
    return {
        "pods": n,
        "mib": round(held / 2**20, 1),
        "bytes_per_pod": held // max(n, 1),
        "replace_s": round(replace_s, 2),
    }


def gc_pause(pages: list[bytes], make_store: Callable[[], Any]) -> dict[str, Any]:
    """What a store of every pod adds to a full cyclic-GC collection (the best of 3 with it, less the best of 3
    without; this process holds other things too): every request of a portal process waits for it. CPython runs one
    when the objects that survived into the oldest generation since the last one reach a quarter of those there (a
    watch event's new record survives)."""

    def best_of_3() -> float:
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            gc.collect()
            times.append((time.perf_counter() - t0) * 1000)
        return round(min(times), 1)

    without, tracked_before = best_of_3(), len(gc.get_objects())
    store = make_store()
    items = [dict(item, kind="Pod", apiVersion="v1") for data in pages for item in json.loads(data)["items"]]
    store.replace("pods", items)
    del items
    added = len(gc.get_objects()) - tracked_before
    with_store = best_of_3()
    return {
        "pods": store.count("pods"),
        "gc_tracked_objects_added": added,
        "full_collection_ms_added": round(with_store - without, 1),
        "full_collection_ms": with_store,
        "without_ms": without,
    }


def watch_lag(cache: Any, api: Any, names: list[str], writes: int) -> dict[str, Any]:
    from kubernetes import client as k8s

    core = k8s.CoreV1Api(api)
    from_start, from_ack = [], []
    for i in range(writes):
        name = names[i * 7919 % len(names)]
        t0 = time.perf_counter()
        core.patch_namespaced_pod(name, NS, {"metadata": {"annotations": {"bench/seq": str(i)}}})
        t1 = time.perf_counter()
        while ((cache.get("pods", NS, name) or {}).get("metadata", {}).get("annotations") or {}).get(
            "bench/seq"
        ) != str(i):
            time.sleep(0.0002)
        t2 = time.perf_counter()
        from_start.append((t2 - t0) * 1000)
        from_ack.append((t2 - t1) * 1000)
    return {"writes": writes, "write_start_to_visible": summary(from_start), "write_ack_to_visible": summary(from_ack)}


def _listed(custom: Any, plural: str) -> list[dict[str, Any]]:
    """The host's ``plural`` in the bench namespace; waits out a CRD's storage still initializing (429)."""
    from kubernetes.client.exceptions import ApiException

    for _ in range(120):
        try:
            return list(custom.list_namespaced_custom_object("pincompute.io", "v1", NS, plural)["items"])
        except ApiException as exc:
            if exc.status not in (429, 503):
                raise
            time.sleep(0.5)
    raise TimeoutError(f"the host never served {plural}")


def cleanup(apis: list[Any]) -> None:
    """The project's namespaces gone; the host objects' federation finalizer dropped first (no operator runs)."""
    from kubernetes import client as k8s
    from kubernetes.client.exceptions import ApiException

    custom = k8s.CustomObjectsApi(apis[0])
    for plural in sorted(set(hostobjects.PLURAL.values())):
        names = [o["metadata"]["name"] for o in _listed(custom, plural)]
        with ThreadPoolExecutor(16) as ex:
            list(
                ex.map(
                    lambda name, plural=plural: custom.patch_namespaced_custom_object(
                        "pincompute.io", "v1", NS, plural, name, {"metadata": {"finalizers": None}}
                    ),
                    names,
                )
            )
    for api in apis:
        try:
            k8s.CoreV1Api(api).delete_namespace(NS, grace_period_seconds=0)
        except ApiException as exc:
            if exc.status not in (404, 409):
                raise


# -- the run ----------------------------------------------------------------------------------------------------


def onboard(admin: Any) -> Any:
    from projects.members import MemberInput
    from projects.onboarding import ProjectDraft, onboard_project

    draft = ProjectDraft(name=PROJECT, team="bench", cost_center="CC-0001")
    draft.members = [MemberInput("user", admin.get_username(), "owner")]
    return onboard_project(draft, actor=admin)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--state-dir", type=Path, default=Path("/tmp/bench-readpath-cp"))
    ap.add_argument("--workloads", type=int, default=10_000)
    ap.add_argument("--pods", type=int, default=100_000)
    ap.add_argument("--nodes", type=int, default=20)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--lag-writes", type=int, default=200)
    ap.add_argument("--create-timeout", type=float, default=2400)
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--synthetic-to", type=int, default=100_000, help="fill the cache with clones up to this")
    ap.add_argument("--reuse", action="store_true", help="the objects of a previous --keep run are there: measure")
    ap.add_argument("--keep", action="store_true", help="leave the objects and the control plane for a --reuse run")
    ap.add_argument(
        "--add", action="store_true", help="keep a --keep run's objects and create what is missing (409s count)"
    )
    ap.add_argument(
        "--backing",
        choices=("worker", "eager"),
        default="worker",
        help="worker: PostgreSQL (pooled), Redis and a Celery worker, as production; eager: the embedded default "
        "(SQLite, in-memory cache, tasks run inline)",
    )
    args = ap.parse_args()
    os.environ |= {"API_READ_RATE_LIMIT": "1000000/min", "API_RATE_LIMIT": "1000000/min"}  # measure, not throttle

    cp = LocalControlPlane(args.state_dir, members=1, nodes_per_member=args.nodes)
    started = not args.reuse and not cp.is_healthy()  # --reuse: the --keep run's control plane, as it runs
    if started:
        cp.up(timeout=600)
    backing = Backing(args.backing, Path(tempfile.mkdtemp(prefix="bench-readpath-")), 1)
    backing.start()
    admin, clusters = setup_portal(cp)
    backing.start_worker()
    from kubernetes import client as k8s

    from accounts.services import create_api_token
    from clusters import runtime

    host = next(c for c in clusters if c.role == "host")
    member = next(c for c in clusters if c.role == "member")
    host_api, member_api = runtime.api_for(host), runtime.api_for(member)
    portal: Portal | None = None
    results: dict[str, Any] = {"load_at_start": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    try:
        if not args.reuse and not args.add:
            cleanup([host_api, member_api])
            gone = lambda: all(ns.metadata.name != NS for ns in k8s.CoreV1Api(member_api).list_namespace().items)  # noqa: E731
            wait_for(gone, timeout=1800, interval=1, what="the previous run's namespace gone")
        project = onboard(admin)
        wait_for(lambda: provisioned_everywhere(project.pk, 2), timeout=180, interval=0.2, what="project provisioned")
        _, token = create_api_token(user=admin, name="bench", days=1)
        import httpx

        portal = Portal(backing.workdir)
        base = portal.base
        auth = {"Authorization": f"Bearer {token}"}
        with httpx.Client(headers=auth, timeout=60) as client:  # its caches start on first use, as in production
            for path in ("workloads/?limit=1", "pods/?limit=1"):
                assert client.get(f"{base}/api/v1/projects/{PROJECT}/{path}").status_code == 200
        nodes = [n.metadata.name for n in k8s.CoreV1Api(member_api).list_node(label_selector="type=kwok").items]
        # the portal's caches start now, as a running portal's would be: they follow the creation by watch events
        t_start = time.perf_counter()
        # the bench's own caches (watch lag, phases): in a --reuse run only after the API's figures, once the portal
        # has stopped (two more 100k-pod relists at once took the 24 GiB machine to its last 100 MiB)
        own = None if args.reuse else (runtime.host_cache(), runtime.member_caches()[member.name])

        # 1. objects
        deadline = time.monotonic() + (args.create_timeout if not args.reuse else 0)
        shapes = hostobjects.templates(project)
        made, rate = post_all(
            host_api,
            lambda i: f"/apis/pincompute.io/v1/namespaces/{NS}/{hostobjects.PLURAL[hostobjects.kind_of(i)]}"
            "?fieldManager=pinconsole",
            lambda i: hostobjects.manifest(shapes, i),
            args.workloads,
            args.threads,
            deadline,
        )
        print(f"{made} workloads created at {rate:.0f}/s", flush=True)
        with ThreadPoolExecutor(args.threads) as ex:
            list(
                ex.map(
                    lambda i: patch_status(
                        host_api,
                        f"/apis/pincompute.io/v1/namespaces/{NS}/{hostobjects.PLURAL[hostobjects.kind_of(i)]}"
                        f"/wl-{i:05d}/status?fieldManager=pincompute-operator",
                        {"status": hostobjects.status(hostobjects.manifest(shapes, i), member.name, "local-1a")},
                    ),
                    range(made),
                )
            )
        t0 = time.perf_counter()
        pods, pod_rate = post_all(
            member_api,
            lambda i: f"/api/v1/namespaces/{NS}/pods",
            lambda i: pod_body(i, nodes[i % len(nodes)]),
            args.pods,
            args.threads,
            deadline,
        )
        results["created"] = {
            "workloads": made,
            "workloads_per_s": round(rate, 1),
            "pods": pods,
            "pods_per_s": round(pod_rate, 1),
            "pods_create_s": round(time.perf_counter() - t0, 1),
        }
        if pods < args.pods:
            results["created"]["short_because"] = (
                f"--create-timeout {args.create_timeout:.0f}s reached after {pods} pods at {pod_rate:.0f} pods/s "
                f"(apiserver + etcd + kwok on {os.cpu_count()} cores)"
            )
        print(f"{pods} pods created at {pod_rate:.0f}/s", flush=True)

        # 2. the portal's caches, then the API against direct LISTs
        if args.reuse:
            made, pods = args.workloads, args.pods
            results["created"] = {"workloads": made, "pods": pods, "by": "a previous --keep run"}
        t0 = t_start if args.reuse else time.perf_counter()
        with httpx.Client(timeout=60) as client:

            def portal_holds_all() -> bool:
                counts = portal.cached(client)
                return counts.get("pinapps", 0) + counts.get("pinpods", 0) >= made and counts.get("pods", 0) >= pods

            wait_for(portal_holds_all, timeout=900, interval=0.5, what="the portal's caches hold every object")
        t1 = time.perf_counter()
        if own is not None:
            host_cache, member_cache = own
            wait_for(
                lambda: host_cache.count("pinapps", NS) + host_cache.count("pinpods", NS) >= made
                and member_cache.count("pods", NS) >= pods,
                timeout=900,
                interval=0.5,
                what="the bench's own caches (watch lag, phases) hold every object",
            )
            wait_for(
                lambda: member_cache.aggregates()["pods_by_phase"].get("Running", 0) >= pods,
                timeout=1800,
                interval=1,
                what="kwok marks every pod Running",
            )
        results["caches_caught_up_s"], running = round(t1 - t0, 1), time.perf_counter() - t1
        results["all_running_after_s"] = round(running, 1)
        print(f"caches hold everything; all pods Running after {running:.0f}s more", flush=True)
        with (
            httpx.Client(headers=auth, timeout=60) as client,
            direct_client(host_api) as to_host,
            direct_client(member_api) as to_member,
        ):
            walks = [
                Walk(client, f"{base}/api/v1/projects/{PROJECT}/workloads/?limit=100", direct=False),
                Walk(to_host, f"/apis/pincompute.io/v1/namespaces/{NS}/pinpods?limit=100", direct=True),
                Walk(client, f"{base}/api/v1/projects/{PROJECT}/pods/?limit=100", direct=False),
                Walk(to_member, f"/api/v1/namespaces/{NS}/pods?limit=100", direct=True),
            ]
            interleaved(walks, args.reps)
            results["one_workload_pods"] = one_workload(client, to_member, base, made, min(args.reps, 100))
        results["workloads_page_100"] = compare(walks[0].result(), walks[1].result())
        results["pods_page_100"] = compare(walks[2].result(), walks[3].result())
        results["portal_rss_mib"] = portal.rss_mib()
        shown = ("workloads_page_100", "pods_page_100", "one_workload_pods")
        print(json.dumps({k: results[k] for k in shown}, indent=1), flush=True)
        if own is None:
            portal.stop()
            own = (runtime.host_cache(), runtime.member_caches()[member.name])
        host_cache, member_cache = own
        wait_for(lambda: member_cache.count("pods", NS) >= pods, timeout=900, interval=0.5, what="the bench's caches")

        # 4. watch lag at this size (before the memory step's allocations)
        names = [str(p["metadata"]["name"]) for p in member_cache.page("pods", NS, limit=5000)[0]]
        results["watch_lag"] = watch_lag(member_cache, member_api, names, args.lag_writes)
        print("watch lag:", json.dumps(results["watch_lag"]), flush=True)

        # a cold cache at this size: what a new ASGI process (or a relist) pays before it can answer
        from clusters.kube import ClientPool, ClusterTarget, WatchCache

        pool = ClientPool([ClusterTarget(member.name, str(cp.kubeconfig_path), member.kube_context)])
        cold = WatchCache(pool, member.name)
        t0 = time.perf_counter()
        cold.start()
        synced = cold.wait_synced(900)
        results["cold_start_to_synced_s"] = round(time.perf_counter() - t0, 1) if synced else None
        cold.stop()
        pool.close()
        del cold
        print(f"cold start to synced: {results['cold_start_to_synced_s']} s", flush=True)

        # 3. memory
        from clusters.kube.aggregates import NodeAggregates, PodAggregates
        from clusters.kube.cache import cluster_store
        from clusters.kube.slim import slim
        from pincompute.kube.store import Store

        pages = raw_pods(member_api)
        results["cache_memory"] = store_memory(pages, cluster_store)
        print("cache memory:", json.dumps(results["cache_memory"]), flush=True)
        results["gc_pause"] = gc_pause(pages, cluster_store)
        print("full GC collection with every pod cached:", json.dumps(results["gc_pause"]), flush=True)
        aggregators = {"pods": PodAggregates, "nodes": NodeAggregates}
        results["cache_memory_before_slim_only_10k"] = store_memory(
            pages, lambda: Store(slimmer=slim, aggregators=aggregators), limit=10_000
        )
        print("before (slimmed only, 10k):", json.dumps(results["cache_memory_before_slim_only_10k"]), flush=True)
        if args.synthetic_to > pods:
            # fewer real pods than the seed's scale: the cache is still measured at it, with clones of the real pods
            fill = clones(pages, args.synthetic_to)
            synthetic = [json.dumps({"items": fill[i : i + 5000]}).encode() for i in range(0, len(fill), 5000)]
            results["cache_memory_synthetic"] = store_memory(synthetic, cluster_store)
            print("cache memory, clones:", json.dumps(results["cache_memory_synthetic"]), flush=True)
            del fill, synthetic
            gc.collect()
        results["load_at_end"] = [round(x, 2) for x in os.getloadavg()]
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2))
        print(f"wrote {args.out}", flush=True)
    finally:
        if portal is not None:
            portal.stop()
        if not args.keep:
            cleanup([host_api, member_api])
        runtime.shutdown()
        backing.stop()
        if started and not args.keep:
            cp.down()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
