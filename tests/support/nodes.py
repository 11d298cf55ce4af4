"""Relabel a member's kwok nodes' zone for a test, and wait until the portal's node cache has seen it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from kubernetes import client

from clusters import runtime
from devtools.waiting import wait_for
from pincompute.labels import NODE_ZONE_LABEL


def node_zones(name: str) -> set[str]:
    """The zones the portal's node cache of member ``name`` holds (waits for the cache to sync)."""
    cache = runtime.member_caches()[name]
    assert cache.wait_synced(30), f"{name}'s node cache did not sync"
    return {(n["metadata"].get("labels") or {}).get(NODE_ZONE_LABEL, "") for n in cache.list("nodes")}


def _label_zone(api: client.ApiClient, zone: str) -> None:
    core = client.CoreV1Api(api)
    for node in core.list_node(label_selector="type=kwok").items:
        core.patch_node(node.metadata.name, {"metadata": {"labels": {NODE_ZONE_LABEL: zone}}})


@contextmanager
def zone_relabelled(api: client.ApiClient, name: str, zone: str) -> Iterator[None]:
    """Every kwok node of member ``name`` (``api``) in ``zone`` while the block runs, then back where it was; the
    portal's node cache has seen each change before the block starts and before this returns."""
    [before] = node_zones(name)
    _label_zone(api, zone)
    wait_for(lambda: node_zones(name) == {zone}, timeout=30, interval=0.2)
    try:
        yield
    finally:
        _label_zone(api, before)
        wait_for(lambda: node_zones(name) == {before}, timeout=30, interval=0.2)
