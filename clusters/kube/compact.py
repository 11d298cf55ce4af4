"""Compact pod records for the portal's member caches: only what the pages and APIs read, shared where equal.

A slimmed pod still held ~12.5 KB in the cache (10k pods: 119 MiB per process), mostly fields nobody reads
(env, volumes, mounts, tolerations, conditions, managedFields' leftovers) and strings repeated in every pod.
``PodCompactor`` keeps the fields of ``POD_READS`` (every reader of ``cache.get/list("pods")``: the workload
pages, the pods API, debugging's resolver and page, the project tutorial, the aggregates, the timeline) and
builds them so that equal parts are one object:

- strings that repeat across pods (namespaces, node names, label keys and values, images, phases, timestamps)
  are ``sys.intern``-ed;
- labels, annotations, owner references, the whole spec (per template and node) and each container's status
  are hash-consed through a ``Shared`` table: identical sub-structures are the same dict or list.

Sharing is safe because cached objects are read-only (``pincompute.kube.store``'s contract) and a watch
event replaces an object instead of mutating it. A pod field not in ``POD_READS`` is not cached: a page that
needs the whole object reads it from the apiserver (no page does today).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable
from typing import Any

from .slim import LAST_APPLIED

Obj = dict[str, Any]
Path = tuple[str, ...]
SHARED_LIMIT = 50_000  # canonical values kept for reuse; the table starts over past this (objects keep theirs)

# What a compact pod answers, exactly as the slimmed pod did (tests/clusters/kube/test_compact.py checks each one).
# "*" is every element of a list.
META_FIELDS = ("name", "namespace", "uid", "resourceVersion", "creationTimestamp", "deletionTimestamp")
SHARED_META = ("labels", "annotations", "ownerReferences")
SPEC_FIELDS = ("nodeName", "priorityClassName")
CONTAINER_FIELDS = ("name", "image", "resources", "restartPolicy")
CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
STATUS_FIELDS = ("phase", "reason", "message", "podIP", "hostIP", "startTime")
CONTAINER_STATUS_FIELDS = ("name", "image", "ready", "started", "restartCount", "state", "lastState")
STATUS_LISTS = ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")
POD_READS: tuple[Path, ...] = (
    ("kind",),
    ("apiVersion",),
    *(("metadata", f) for f in (*META_FIELDS, *SHARED_META)),
    *(("spec", f) for f in SPEC_FIELDS),
    *(("spec", lst, "*", f) for lst in CONTAINER_LISTS for f in CONTAINER_FIELDS),
    *(("status", f) for f in STATUS_FIELDS),
    *(("status", lst, "*", f) for lst in STATUS_LISTS for f in CONTAINER_STATUS_FIELDS),
)
CONDITION_FIELDS = ("type", "status", "reason", "message")
"""A pod's conditions are kept only when not True (a pod no node takes: ``PodScheduled`` False, ``Unschedulable``),
with these fields: what the diagnosis reads (``workloads.diagnosis``); a healthy pod keeps none."""
_INTERNED_META = frozenset({"namespace", "creationTimestamp", "deletionTimestamp"})
_INTERNED_STATUS = frozenset({"phase", "reason", "hostIP", "startTime"})


def intern(value: object) -> object:
    return sys.intern(value) if type(value) is str else value


class Shared:
    """Hash-consing of JSON values: ``shared(v)`` is equal to ``v`` and is the same object for equal values.

    Strings are interned; a dict or list is looked up by a key built from its (already canonical) members.
    """

    def __init__(self, limit: int = SHARED_LIMIT) -> None:
        self.limit = limit
        self._table: dict[Hashable, tuple[Any, Hashable]] = {}

    def __len__(self) -> int:
        return len(self._table)

    def __call__(self, value: Any) -> Any:
        return self._share(value)[0]

    def _canonical(self, key: Hashable, build: Callable[[], Any]) -> tuple[Any, Hashable]:
        found = self._table.get(key)
        if found is None:
            if len(self._table) >= self.limit:
                self._table.clear()  # a bounded table: values already handed out stay shared
            found = self._table[key] = (build(), key)
        return found

    def _share(self, value: Any) -> tuple[Any, Hashable]:
        if type(value) is str:
            s = sys.intern(value)
            return s, s
        if isinstance(value, dict):
            parts = [(sys.intern(str(k)), *self._share(v)) for k, v in value.items()]
            key: Hashable = ("{", tuple((k, fk) for k, _, fk in parts))
            return self._canonical(key, lambda: {k: v for k, v, _ in parts})
        if isinstance(value, list):
            items = [self._share(v) for v in value]
            key = ("[", tuple(fk for _, fk in items))
            return self._canonical(key, lambda: [v for v, _ in items])
        return value, (type(value).__name__, value)  # True and 1 must not share


def _pick(source: Obj, fields: tuple[str, ...], interned: frozenset[str] = frozenset()) -> Obj:
    return {f: (intern(source[f]) if f in interned else source[f]) for f in fields if f in source}


def _containers(value: Any) -> Any:
    if not isinstance(value, list):
        return value
    return [_pick(c, CONTAINER_FIELDS) if isinstance(c, dict) else c for c in value]


class PodCompactor:
    """The portal store's slimmer for "pods" (one per store: its ``Shared`` table is the store's)."""

    def __init__(self, shared: Shared | None = None) -> None:
        self.shared = shared or Shared()

    def __call__(self, pod: Obj) -> Obj:
        out: Obj = {k: intern(pod[k]) for k in ("kind", "apiVersion") if k in pod}
        meta, spec, status = pod.get("metadata"), pod.get("spec"), pod.get("status")
        if isinstance(meta, dict):
            out["metadata"] = self._meta(meta)
        elif "metadata" in pod:
            out["metadata"] = meta
        if isinstance(spec, dict):
            s = _pick(spec, SPEC_FIELDS, frozenset(SPEC_FIELDS))
            s.update({lst: _containers(spec[lst]) for lst in CONTAINER_LISTS if lst in spec})
            out["spec"] = self.shared(s)  # one spec per template and node
        elif "spec" in pod:
            out["spec"] = spec
        if isinstance(status, dict):
            out["status"] = self._status(status)
        elif "status" in pod:
            out["status"] = status
        return out

    def _meta(self, meta: Obj) -> Obj:
        m = _pick(meta, META_FIELDS, _INTERNED_META)
        for f in SHARED_META:
            if f in meta:
                value = meta[f]
                if f == "annotations" and isinstance(value, dict) and LAST_APPLIED in value:
                    value = {k: v for k, v in value.items() if k != LAST_APPLIED}
                m[f] = self.shared(value)
        return m

    def _status(self, status: Obj) -> Obj:
        st = _pick(status, STATUS_FIELDS, _INTERNED_STATUS)
        for lst in STATUS_LISTS:
            if lst in status:
                value = status[lst]
                if isinstance(value, list):
                    value = [
                        self.shared(_pick(c, CONTAINER_STATUS_FIELDS)) if isinstance(c, dict) else c for c in value
                    ]
                st[lst] = value
        failing = [
            self.shared(_pick(c, CONDITION_FIELDS))
            for c in status.get("conditions") or []
            if isinstance(c, dict) and c.get("status") != "True"
        ]
        if failing:
            st["conditions"] = failing
        return st
