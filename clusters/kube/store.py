"""Thread-safe in-memory object store with secondary indexes and incremental aggregates.

Returned objects are the store's own dicts, shared between readers: treat them as READ-ONLY. The store
never mutates a stored object either (every event replaces it), so a reference stays a consistent
snapshot of that object. ``copy.deepcopy`` it before changing anything.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .aggregates import NodeAggregates, PodAggregates, node_contribution, pod_contribution
from .slim import slim

Key = tuple[str, str]  # (namespace or "", name)
Obj = dict[str, Any]
DEFAULT_INDEXED_LABELS: frozenset[str] | None = None  # None: index every label pair (measured: cheap)


def key_of(obj: Mapping[str, Any]) -> Key:
    meta = obj.get("metadata") or {}
    return (meta.get("namespace") or "", meta.get("name") or "")


def _timestamp(obj: Mapping[str, Any]) -> str:
    """Sort key for events: the newest occurrence (RFC 3339 strings sort chronologically)."""
    meta = obj.get("metadata") or {}
    return str(obj.get("lastTimestamp") or obj.get("eventTime") or meta.get("creationTimestamp") or "")


@dataclass
class _Kind:
    objects: dict[Key, Obj] = field(default_factory=dict)
    contrib: dict[Key, Any] = field(default_factory=dict)
    # dict-as-ordered-set: iteration follows insertion order, so list() needs no sort
    by_ns: dict[str, dict[Key, None]] = field(default_factory=dict)
    by_label: dict[tuple[str, str], dict[Key, None]] = field(default_factory=dict)
    by_owner: dict[str, dict[Key, None]] = field(default_factory=dict)
    contribute: Callable[[Obj], Any] | None = None
    agg: Any = None  # PodAggregates | NodeAggregates | None


def _new_kind(kind: str) -> _Kind:
    if kind == "pods":
        return _Kind(contribute=pod_contribution, agg=PodAggregates())
    if kind == "nodes":
        return _Kind(contribute=node_contribution, agg=NodeAggregates())
    return _Kind()


def _index_keys(obj: Obj, indexed: frozenset[str] | None) -> Iterable[tuple[str, Any]]:
    meta = obj.get("metadata") or {}
    yield "ns", meta.get("namespace") or ""
    for k, v in (meta.get("labels") or {}).items():
        if indexed is None or k in indexed:
            yield "label", (k, v)
    for ref in meta.get("ownerReferences") or ():
        if ref.get("uid"):
            yield "owner", ref["uid"]


class Store:
    """All watched kinds of one cluster. One lock: writes are tiny, reads copy lists of references."""

    def __init__(
        self, indexed_labels: frozenset[str] | None = DEFAULT_INDEXED_LABELS, slimmer: Callable[[Obj], Obj] = slim
    ) -> None:
        self.indexed_labels = indexed_labels
        self._slim = slimmer
        self._lock = threading.RLock()
        self._kinds: dict[str, _Kind] = {}

    # -- writes (watcher threads) ---------------------------------------------------------------

    def _index(self, k: _Kind, key: Key, obj: Obj, add: bool) -> None:
        for idx, value in _index_keys(obj, self.indexed_labels):
            table = k.by_ns if idx == "ns" else k.by_label if idx == "label" else k.by_owner
            if add:
                table.setdefault(value, {})[key] = None
            else:
                members = table.get(value)
                if members is not None:
                    members.pop(key, None)
                    if not members:
                        del table[value]

    def _put(self, k: _Kind, obj: Obj) -> None:
        key = key_of(obj)
        self._remove(k, key)
        k.objects[key] = obj
        self._index(k, key, obj, add=True)
        if k.contribute is not None:
            c = k.contrib[key] = k.contribute(obj)
            k.agg.apply(c, +1)

    def _remove(self, k: _Kind, key: Key) -> None:
        old = k.objects.pop(key, None)
        if old is None:
            return
        self._index(k, key, old, add=False)
        if k.contribute is not None:
            k.agg.apply(k.contrib.pop(key), -1)

    def _evict(self, k: _Kind, max_objects: int | None) -> None:
        while max_objects is not None and len(k.objects) > max_objects:
            self._remove(k, next(iter(k.objects)))

    def replace(self, kind: str, items: Iterable[Obj], max_objects: int | None = None) -> None:
        """Swap in a full LIST result; readers see either the old or the new set, never a mix."""
        slimmed = [self._slim(o) for o in items]
        if max_objects is not None:
            slimmed.sort(key=_timestamp)
            slimmed = slimmed[-max_objects:] if max_objects else []
        k = _new_kind(kind)  # built outside the lock: readers keep being served during a 10k relist
        for obj in slimmed:
            self._put(k, obj)
        with self._lock:
            self._kinds[kind] = k

    def apply(self, kind: str, event_type: str, obj: Obj, max_objects: int | None = None) -> None:
        """ADDED / MODIFIED / DELETED from a watch stream."""
        new = self._slim(obj) if event_type != "DELETED" else obj
        with self._lock:
            k = self._kinds.get(kind)
            if k is None:
                k = self._kinds[kind] = _new_kind(kind)
            if event_type == "DELETED":
                self._remove(k, key_of(obj))
            elif event_type in ("ADDED", "MODIFIED"):
                self._put(k, new)  # _put removes first, so a MODIFIED moves to the end (newest)
                self._evict(k, max_objects)

    def drop(self, kind: str) -> None:
        """Forget a kind (its CRD went away)."""
        with self._lock:
            self._kinds.pop(kind, None)

    # -- reads (any thread) ---------------------------------------------------------------------
    def get(self, kind: str, namespace: str | None, name: str) -> Obj | None:
        with self._lock:
            k = self._kinds.get(kind)
            return None if k is None else k.objects.get((namespace or "", name))

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        label_selector: Mapping[str, str] | None = None,
        owner_uid: str | None = None,
    ) -> list[Obj]:
        """Objects matching all given filters (equality label selector), in insertion order."""
        with self._lock:
            k = self._kinds.get(kind)
            if k is None:
                return []
            sets: list[dict[Key, None]] = []
            scan: list[tuple[str, str]] = []
            if namespace is not None:
                sets.append(k.by_ns.get(namespace, {}))
            if owner_uid is not None:
                sets.append(k.by_owner.get(owner_uid, {}))
            for lk, lv in (label_selector or {}).items():
                if self.indexed_labels is None or lk in self.indexed_labels:
                    sets.append(k.by_label.get((lk, lv), {}))
                else:
                    scan.append((lk, lv))
            objects = k.objects
            if not sets:
                out = list(objects.values())
            else:
                sets.sort(key=len)
                first, rest = sets[0], sets[1:]
                out = [objects[key] for key in first if all(key in s for s in rest)]
        if scan:
            out = [o for o in out if all(((o["metadata"].get("labels") or {}).get(a) == b) for a, b in scan)]
        return out

    def count(self, kind: str, namespace: str | None = None, label_selector: Mapping[str, str] | None = None,
              owner_uid: str | None = None) -> int:
        if label_selector is None and owner_uid is None:
            with self._lock:
                k = self._kinds.get(kind)
                if k is None:
                    return 0
                return len(k.objects) if namespace is None else len(k.by_ns.get(namespace, ()))
        return len(self.list(kind, namespace, label_selector, owner_uid))

    def kinds(self) -> list[str]:
        with self._lock:
            return sorted(self._kinds)

    def aggregates(self) -> dict[str, Any]:
        """A consistent snapshot of pod and node aggregates (plain dicts of frozen Resources)."""
        with self._lock:
            pods, nodes = self._kinds.get("pods"), self._kinds.get("nodes")
            return {
                **(pods.agg if pods is not None else PodAggregates()).snapshot(),
                **(nodes.agg if nodes is not None else NodeAggregates()).snapshot(),
            }
