"""The floor under "all pods Running": the members' own objects written by a plain client, no operator.

``ssa_floor.py`` measures the apiservers taking the host objects and their shards. "All pods Running" also needs
what no operator logic can skip: each shard's native objects (a PinPod's Pod, a PinApp zone shard's Deployment)
created on its member, the member's controller-manager making ReplicaSets and Pods, its scheduler binding them, kwok
marking them Running, and each of those writes taking its turn on the same two cores. ``run_pods_floor`` writes
exactly the objects the member operator would (``pincompute.translate`` with the shipped runtime profile and the
same placement), with as many threads as the bench's creates, and times the first write to the last pod Running.
That rate is the most the federation can reach to "all pods Running" on this machine.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from kubernetes import client, dynamic, watch
from kubernetes.client.exceptions import ApiException
from ssa_floor import shard_of
from urllib3.exceptions import HTTPError

from devtools.waiting import wait_for
from pincompute.labels import FEDERATED_LABEL
from pincompute.placement import Placement
from pincompute.runtime import RuntimeProfile
from pincompute.translate import translate

FIELD_MANAGER = "bench-pods-floor"
WORKLOAD_LABEL = "pincompute.io/workload"


def native_objects(
    manifest: dict[str, Any], member: str, zone: str, replicas: int | None, profile: RuntimeProfile
) -> list[dict[str, Any]]:
    """What the member operator writes for this shard, without the owner reference to a shard no one created."""
    shard = shard_of(manifest, replicas)
    shard["metadata"].setdefault("uid", "00000000-0000-0000-0000-000000000000")
    objects = translate(shard, profile, Placement(cluster=member, zone=zone, replicas=replicas))
    for obj in objects:
        obj["metadata"].pop("ownerReferences", None)
        obj["metadata"].setdefault("labels", {})[FEDERATED_LABEL] = "true"
    return objects


def run_pods_floor(
    apis: dict[str, client.ApiClient],
    manifests: list[dict[str, Any]],
    members_of: Callable[[dict[str, Any]], list[str]],
    zones: dict[str, str],
    pods_of: Callable[[dict[str, Any]], int],
    profile: RuntimeProfile,
    threads: int,
    timeout: float,
    rate: float = 0.0,
    summary: Callable[[list[float]], dict[str, float]] | None = None,
) -> dict[str, Any]:
    """Write every shard's native objects on its member(s), as a burst or ``rate`` workloads a second; seconds until
    every pod is Running, the rate, and (``summary``) each workload's first write to all its pods Running in ms."""
    namespace = manifests[0]["metadata"]["namespace"]
    members = sorted({m for manifest in manifests for m in members_of(manifest)})
    dyn = {name: dynamic.DynamicClient(apis[name]) for name in members}
    resources: dict[tuple[str, str, str], Any] = {}
    lock = threading.Lock()
    running: dict[str, set[str]] = {}
    expected = {m["metadata"]["name"]: pods_of(m) for m in manifests}
    kinds = {m["metadata"]["name"]: str(m["kind"]) for m in manifests}
    began: dict[str, float] = {}
    all_running_at: dict[str, float] = {}
    work: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for manifest in manifests:
        placed = members_of(manifest)
        split = manifest["spec"].get("replicas")
        items = work.setdefault(manifest["metadata"]["name"], [])
        for member in placed:
            share = split // len(placed) if split else None
            items += [(member, obj) for obj in native_objects(manifest, member, zones[member], share, profile)]
    for member, obj in (item for items in work.values() for item in items):  # discovery outside the timing
        key = (member, obj["apiVersion"], obj["kind"])
        if key not in resources:
            resources[key] = dyn[member].resources.get(api_version=obj["apiVersion"], kind=obj["kind"])

    streams = {member: watch.Watch() for member in members}
    done = threading.Event()

    def follow(member: str) -> None:
        core = client.CoreV1Api(apis[member])
        try:
            for event in streams[member].stream(core.list_namespaced_pod, namespace, timeout_seconds=600):
                seen(member, event)
        except (ApiException, HTTPError):
            if not done.is_set():  # a watch broken before the end would leave the floor waiting: say so
                raise

    def seen(member: str, event: dict[str, Any]) -> None:
        pod = event["object"]
        name = (pod.metadata.labels or {}).get(WORKLOAD_LABEL, "")
        if event["type"] != "DELETED" and pod.status and pod.status.phase == "Running":
            with lock:
                pods = running.setdefault(name, set())
                pods.add(f"{member}/{pod.metadata.name}")
                if len(pods) >= expected.get(name, 1 << 30):
                    all_running_at.setdefault(name, time.monotonic())

    watchers = [threading.Thread(target=follow, args=(m,), daemon=True) for m in members]
    for t in watchers:
        t.start()
    time.sleep(1.0)

    def write(name: str) -> None:
        began[name] = time.monotonic()
        for member, obj in work[name]:
            apply(member, obj)

    def apply(member: str, obj: dict[str, Any]) -> None:
        dyn[member].server_side_apply(
            resources[(member, obj["apiVersion"], obj["kind"])],
            body=obj,
            name=obj["metadata"]["name"],
            namespace=namespace,
            field_manager=FIELD_MANAGER,
            force_conflicts=True,
        )

    def all_running() -> bool:
        with lock:
            return all(len(running.get(name, ())) >= want for name, want in expected.items())

    for member in members:  # a pod of a namespace whose default ServiceAccount is not made yet is refused
        wait_for(lambda m=member: _has_default_account(apis[m], namespace), 60, what=f"{member}'s ServiceAccount")
    start = time.monotonic()
    with ThreadPoolExecutor(threads) as pool:
        if rate:  # paced: the i-th workload starts i / rate seconds after the first
            futures = []
            for i, name in enumerate(work):
                time.sleep(max(0.0, start + i / rate - time.monotonic()))
                futures.append(pool.submit(write, name))
            for future in futures:
                future.result()  # a refused write ends the run
        else:
            list(pool.map(write, work))
    written = time.monotonic() - start
    try:
        wait_for(all_running, timeout, interval=0.1, what=f"{len(manifests)} workloads' pods Running (pods floor)")
    finally:
        done.set()
        for stream in streams.values():
            stream.stop()
    seconds = time.monotonic() - start
    return {
        "workloads": len(manifests),
        "pods": sum(expected.values()),
        "objects_written": sum(len(items) for items in work.values()),
        "rate": rate or "burst",
        "write_seconds": round(written, 2),
        "seconds_to_all_running": round(seconds, 2),
        "workloads_per_second": round(len(manifests) / seconds, 1),
        **({"latency_ms": summary([all_running_at[n] - began[n] for n in work])} if summary else {}),
        **({"from_first_write_ms": summary([all_running_at[n] - start for n in work])} if summary else {}),
        **(
            {
                "latency_ms_by_kind": {
                    kind: summary([all_running_at[n] - began[n] for n in work if kinds[n] == kind])
                    for kind in sorted(set(kinds.values()))
                }
            }
            if summary
            else {}
        ),
    }


def _has_default_account(api: client.ApiClient, namespace: str) -> bool:
    try:
        client.CoreV1Api(api).read_namespaced_service_account("default", namespace)
    except ApiException as exc:
        if exc.status == 404:
            return False
        raise
    return True
