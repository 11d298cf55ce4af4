"""The floor under the federation bench: how fast the same apiservers take the same objects with no operator logic.

``run_floor`` server-side applies each workload's host object and its shards (the same manifests, a shard per
member the federation would use: a PinPod on one member, a two-zone PinApp on both) with a plain client and as many
threads as the bench's creates, before any operator runs, then removes them. The federation's throughput divided by
this rate is the fraction of the floor it reaches (issue 35 point 6: goal >= 50 %).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from kubernetes import client, dynamic

from pincompute.labels import FEDERATED_LABEL

FIELD_MANAGER = "bench-floor"


def shard_of(manifest: dict[str, Any], replicas: int | None) -> dict[str, Any]:
    """The member copy of a host object as a plain client writes it: marked federated, a PinApp's replicas split."""
    shard = copy.deepcopy(manifest)
    shard["metadata"].setdefault("labels", {})[FEDERATED_LABEL] = "true"
    if replicas is not None:
        shard["spec"]["replicas"] = replicas
    return shard


def run_floor(
    apis: dict[str, client.ApiClient],
    manifests: list[dict[str, Any]],
    members_of: Callable[[dict[str, Any]], list[str]],
    threads: int,
) -> dict[str, Any]:
    """Apply every manifest on the host and its shards on ``members_of(manifest)``; the rates, then delete them."""
    dyn = {name: dynamic.DynamicClient(api) for name, api in apis.items()}
    resources = {}

    def apply(cluster: str, body: dict[str, Any]) -> None:
        key = (cluster, body["kind"])
        if key not in resources:
            resources[key] = dyn[cluster].resources.get(api_version=body["apiVersion"], kind=body["kind"])
        dyn[cluster].server_side_apply(
            resources[key],
            body=body,
            name=body["metadata"]["name"],
            namespace=body["metadata"]["namespace"],
            field_manager=FIELD_MANAGER,
            force_conflicts=True,
        )

    def one(manifest: dict[str, Any]) -> int:
        apply("host", manifest)
        members = members_of(manifest)
        split = manifest["spec"].get("replicas")
        for member in members:
            apply(member, shard_of(manifest, split // len(members) if split else None))
        return 1 + len(members)

    for cluster in {"host", *{m for man in manifests[:1] for m in members_of(man)}}:  # discovery outside the timing
        resources[(cluster, manifests[0]["kind"])] = dyn[cluster].resources.get(
            api_version=manifests[0]["apiVersion"], kind=manifests[0]["kind"]
        )
    start = time.monotonic()
    with ThreadPoolExecutor(threads) as pool:
        objects = sum(pool.map(one, manifests))
    seconds = time.monotonic() - start

    def remove(manifest: dict[str, Any]) -> None:
        meta = manifest["metadata"]
        for cluster in ("host", *members_of(manifest)):
            dyn[cluster].delete(resources[(cluster, manifest["kind"])], name=meta["name"], namespace=meta["namespace"])

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(remove, manifests))
    return {
        "workloads": len(manifests),
        "objects_applied": objects,
        "seconds": round(seconds, 2),
        "workloads_per_second": round(len(manifests) / seconds, 1),
        "objects_per_second": round(objects / seconds, 1),
    }
