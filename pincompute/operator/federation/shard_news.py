"""Which member shard events are news for their host workload.

A shard event queues its host workload's reconcile only when something the reconcile reads changed: the shard's
status (the host status aggregates it), or its spec, labels, annotations or deletion (the reconcile repairs a hand
edit). The echo of our own apply (the shard as the apply returned it) and a member's write that changed none of these
(only its resourceVersion or managed fields) are no news. News arriving within ``COALESCE_SECONDS`` of another for the
same workload joins it in one reconcile (a PinApp's shards report in turn, a shard's status steps through Progressing
to Ready).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

COALESCE_SECONDS = 0.25
ShardId = tuple[str, str, str, str]  # (member, kind, namespace, name)


def fingerprint(obj: Mapping[str, Any]) -> str:
    """What the host workload's reconcile reads from a shard."""
    meta = obj.get("metadata") or {}
    return json.dumps(
        [
            meta.get("uid"),
            meta.get("generation"),
            meta.get("labels"),
            meta.get("annotations"),
            meta.get("deletionTimestamp"),
            obj.get("spec"),
            obj.get("status"),
        ],
        sort_keys=True,
        default=str,
    )


class ShardNews:
    """The last fingerprint seen (or written) per shard; thread-safe (member watch threads and the workers)."""

    def __init__(self) -> None:
        self._known: dict[ShardId, str] = {}
        self._lock = threading.Lock()

    def wrote(self, shard: ShardId, obj: Mapping[str, Any]) -> None:
        """Our apply's result: its watch echo is no news."""
        with self._lock:
            self._known[shard] = fingerprint(obj)

    def is_news(self, shard: ShardId, event: str, obj: Mapping[str, Any]) -> bool:
        if event == "DELETED":
            with self._lock:
                self._known.pop(shard, None)
            return True
        now = fingerprint(obj)
        with self._lock:
            if self._known.get(shard) == now:
                return False
            self._known[shard] = now
            return True
