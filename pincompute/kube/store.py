"""Thread-safe in-memory object store with secondary indexes, filled by list-watches.

Objects are kept per kind (any string the owner chooses: "pods" in the portal cache, "Pod" in the
operator) and indexed by namespace, by label pair and by ownerReference uid, so a lookup costs the
size of its answer. An optional ``slimmer`` strips what nobody reads before an object is stored, and
optional per-kind ``Aggregator``s keep running sums that never need a walk over the objects. A store made
with ``ordered=True`` also keeps each kind's keys sorted, so ``page`` answers a page of a sorted listing in
the size of the page (a bisect to the cursor), not of the kind.

Returned objects are the store's own dicts, shared between readers: treat them as READ-ONLY. The store
never mutates a stored object either (every event replaces it), so a reference stays a consistent
snapshot of that object. ``copy.deepcopy`` it before changing anything.
"""

from __future__ import annotations

import bisect
import builtins
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from pincompute.kube.name_index import NameIndex
from pincompute.kube.rawapi import Obj

Key = tuple[str, str]  # (namespace or "", name)
Slimmer = Callable[[Obj], Obj]
Where = Callable[[Obj], bool]
DEFAULT_INDEXED_LABELS: frozenset[str] | None = None  # None: index every label pair (measured: cheap)


class Aggregator(Protocol):
    """Running sums over one kind: told of every object that enters and leaves the store."""

    def add(self, key: Key, obj: Obj) -> None: ...

    def discard(self, key: Key) -> None: ...

    def snapshot(self) -> Mapping[str, object]: ...


def key_of(obj: Mapping[str, object]) -> Key:
    meta = obj.get("metadata")
    if not isinstance(meta, Mapping):
        return ("", "")
    return (str(meta.get("namespace") or ""), str(meta.get("name") or ""))


def resource_version(obj: Obj) -> int:
    """The object's resourceVersion as a number (0 when absent or not numeric)."""
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or 0)
    except (TypeError, ValueError):
        return 0


def _labels_match(obj: Obj, selector: Mapping[str, str]) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return all(labels.get(lk) == lv for lk, lv in selector.items())


def _timestamp(obj: Obj) -> str:
    """Sort key for events: the newest occurrence (RFC 3339 strings sort chronologically)."""
    meta = obj.get("metadata") or {}
    return str(obj.get("lastTimestamp") or obj.get("eventTime") or meta.get("creationTimestamp") or "")


@dataclass
class _Kind:
    objects: dict[Key, Obj] = field(default_factory=dict)
    # dict-as-ordered-set: iteration follows insertion order, so list() needs no sort
    by_ns: dict[str, dict[Key, None]] = field(default_factory=dict)
    by_label: dict[tuple[str, str], dict[Key, None]] = field(default_factory=dict)
    by_owner: dict[str, dict[Key, None]] = field(default_factory=dict)
    agg: Aggregator | None = None
    order: list[Key] | None = None  # every key, sorted (ordered stores only)
    generation: int = 0  # bumped when a key comes or goes (not when an object changes): the name index's snapshot
    names: NameIndex | None = None


class Store:
    """All watched kinds of one cluster. One lock: writes are tiny, reads copy lists of references."""

    def __init__(
        self,
        *,
        slimmer: Slimmer | None = None,
        indexed_labels: frozenset[str] | None = DEFAULT_INDEXED_LABELS,
        aggregators: Mapping[str, Callable[[], Aggregator]] | None = None,
        slimmers: Mapping[str, Slimmer] | None = None,
        ordered: bool = False,
    ) -> None:
        """``slimmers``: a kind's own slimmer instead of ``slimmer``; ``ordered``: keep sorted keys for ``page``."""
        self.indexed_labels = indexed_labels
        self._slim = slimmer
        self._slimmers = dict(slimmers or {})
        self.ordered = ordered
        self._aggregators = dict(aggregators or {})
        self._lock = threading.RLock()
        self._kinds: dict[str, _Kind] = {}

    # -- writes (list-watch threads; put_if_newer from writers) ---------------------------------
    def _new_kind(self, kind: str) -> _Kind:
        factory = self._aggregators.get(kind)
        return _Kind(agg=factory() if factory is not None else None, order=[] if self.ordered else None)

    def _index(self, k: _Kind, key: Key, obj: Obj, add: bool) -> None:
        meta = obj.get("metadata") or {}
        entries: list[tuple[dict[str, dict[Key, None]], str]] = [(k.by_ns, key[0])]
        entries += [(k.by_owner, str(ref["uid"])) for ref in meta.get("ownerReferences") or () if ref.get("uid")]
        labels: list[tuple[str, str]] = [
            (lk, lv)
            for lk, lv in (meta.get("labels") or {}).items()
            if self.indexed_labels is None or lk in self.indexed_labels
        ]
        if add:
            for table, value in entries:
                table.setdefault(value, {})[key] = None
            for pair in labels:
                k.by_label.setdefault(pair, {})[key] = None
            return
        for table, value in entries:
            members = table.get(value)
            if members is not None:
                members.pop(key, None)
                if not members:
                    del table[value]
        for pair in labels:
            label_members = k.by_label.get(pair)
            if label_members is not None:
                label_members.pop(key, None)
                if not label_members:
                    del k.by_label[pair]

    def _put(self, k: _Kind, obj: Obj, *, sort: bool = True) -> None:
        key = key_of(obj)
        if key in k.objects:
            self._remove(k, key, reorder=False)  # the key keeps its place in the order
        else:
            k.generation += 1
            if sort and k.order is not None:
                bisect.insort(k.order, key)
        k.objects[key] = obj
        self._index(k, key, obj, add=True)
        if k.agg is not None:
            k.agg.add(key, obj)

    def _remove(self, k: _Kind, key: Key, *, reorder: bool = True) -> None:
        old = k.objects.pop(key, None)
        if old is None:
            return
        if reorder:
            k.generation += 1  # a deletion (``_put`` re-adds the key it removes with reorder=False)
        if reorder and k.order is not None:
            at = bisect.bisect_left(k.order, key)
            if at < len(k.order) and k.order[at] == key:
                del k.order[at]
        self._index(k, key, old, add=False)
        if k.agg is not None:
            k.agg.discard(key)

    def _evict(self, k: _Kind, max_objects: int | None) -> None:
        while max_objects is not None and len(k.objects) > max_objects:
            self._remove(k, next(iter(k.objects)))

    def slimmed(self, kind: str, obj: Obj) -> Obj:
        """``obj`` as this store keeps it (its slimmer for ``kind``, if any): a LIST slims each page as it arrives,
        so that a relist holds one raw page at a time, not every raw object until the swap."""
        slimmer = self._slimmers.get(kind, self._slim)
        return slimmer(obj) if slimmer is not None else obj

    def replace(
        self, kind: str, items: Iterable[Obj], max_objects: int | None = None, *, slimmed: bool = False
    ) -> list[Obj]:
        """Swap in a full LIST result; readers see either the old or the new set, never a mix. ``slimmed``: the
        items already went through ``slimmed``.

        Returns the objects that were stored before and are not in ``items`` (deleted while unwatched).
        """
        slimmed_items = list(items) if slimmed else [self.slimmed(kind, o) for o in items]
        if max_objects is not None:
            slimmed_items.sort(key=_timestamp)
            slimmed_items = slimmed_items[-max_objects:] if max_objects else []
        k = self._new_kind(kind)  # built outside the lock: readers keep being served during a 10k relist
        for obj in slimmed_items:
            self._put(k, obj, sort=False)
        if k.order is not None:
            k.order = sorted(k.objects)  # one sort, not an insort per object
        with self._lock:
            old = self._kinds.get(kind)
            self._kinds[kind] = k
        if old is None:
            return []
        return [obj for key, obj in old.objects.items() if key not in k.objects]

    def apply(self, kind: str, event_type: str, obj: Obj, max_objects: int | None = None) -> None:
        """ADDED / MODIFIED / DELETED from a watch stream (anything else is ignored)."""
        if event_type not in ("ADDED", "MODIFIED", "DELETED"):
            return
        new = self.slimmed(kind, obj) if event_type != "DELETED" else obj
        with self._lock:
            k = self._kinds.get(kind)
            if k is None:
                k = self._kinds[kind] = self._new_kind(kind)
            if event_type == "DELETED":
                self._remove(k, key_of(obj))
            else:
                self._put(k, new)  # _put removes first, so a MODIFIED moves to the end (newest)
                self._evict(k, max_objects)

    def put_if_newer(self, kind: str, obj: Obj) -> bool:
        """Store a write's result unless the store already holds that object at a newer resourceVersion
        (a write racing the watch must never move the store back in time). True when stored."""
        new = self.slimmed(kind, obj)
        with self._lock:
            k = self._kinds.get(kind)
            if k is None:
                k = self._kinds[kind] = self._new_kind(kind)
            old = k.objects.get(key_of(new))
            if old is not None and resource_version(old) >= resource_version(new):
                return False
            self._put(k, new)
            return True

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
        scan: list[tuple[str, str]] = []
        with self._lock:
            k = self._kinds.get(kind)
            if k is None:
                return []
            sets: list[dict[Key, None]] = []
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

    def page(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        after: Key | None = None,
        limit: int = 100,
        where: Where | None = None,
        label_selector: Mapping[str, str] | None = None,
    ) -> tuple[builtins.list[Obj], bool]:
        """Up to ``limit`` objects in (namespace, name) order, after the key ``after``, in ``namespace`` and
        matching ``label_selector`` and ``where``; and whether more follow. Needs ``ordered=True``.

        Costs the page (plus what ``where`` skips), not the kind: a bisect to the cursor, then a walk in
        chunks, each taken under the lock and filtered outside it."""
        chunk = max(64, 2 * limit)
        out: builtins.list[Obj] = []
        selected: builtins.list[Key] | None = None
        while True:
            with self._lock:
                k = self._kinds.get(kind)
                if k is None:
                    return [], False
                if k.order is None:
                    raise TypeError("page() needs a store made with ordered=True")
                if label_selector and selected is None:
                    selected = sorted(self._selected(k, label_selector))  # the selection's size, once
                keys = k.order if selected is None else selected
                first = bisect.bisect_left(keys, (namespace or "", ""))
                at = max(bisect.bisect_right(keys, after), first) if after is not None else first
                window = keys[at : at + chunk]
                taken = [(key, obj) for key in window if (obj := k.objects.get(key)) is not None]
            for key, obj in taken:
                if namespace is not None and key[0] != namespace:
                    return out, False
                if (not label_selector or _labels_match(obj, label_selector)) and (where is None or where(obj)):
                    if len(out) == limit:
                        return out, True
                    out.append(obj)
            if len(window) < chunk:
                return out, False
            after = window[-1]

    def _selected(self, k: _Kind, selector: Mapping[str, str]) -> builtins.list[Key]:
        """Keys with every indexed label pair of ``selector`` (the others are the caller's to check)."""
        sets = [
            k.by_label.get((lk, lv), {})
            for lk, lv in selector.items()
            if self.indexed_labels is None or lk in self.indexed_labels
        ]
        if not sets:
            return builtins.list(k.objects)
        sets.sort(key=len)
        return [key for key in sets[0] if all(key in s for s in sets[1:])]

    def matching_keys(self, kind: str, needle: str, *, prefix: bool = False) -> builtins.list[Key]:
        """The (namespace, name) of every object of ``kind`` whose name holds ``needle`` (``prefix``: starts with
        it), from ``name_index``: one scan of a joined string, rebuilt outside the lock after the set of keys
        changed."""
        with self._lock:
            k = self._kinds.get(kind)
            if k is None:
                return []
            index, generation = k.names, k.generation
            keys = None if index is not None and index.generation == generation else builtins.list(k.objects)
        if keys is not None:
            index = NameIndex(keys, generation)
            with self._lock:
                if k.generation == generation:
                    k.names = index
        assert index is not None
        return index.matching(needle, prefix=prefix)

    def keys(self, kind: str, namespace: str | None = None) -> builtins.list[Key]:
        """The (namespace, name) of every object of ``kind`` (in ``namespace``): a name search reads these, and
        only the objects whose names match."""
        with self._lock:
            k = self._kinds.get(kind)
            if k is None:
                return []
            return builtins.list(k.objects if namespace is None else k.by_ns.get(namespace, {}))

    def count(
        self,
        kind: str,
        namespace: str | None = None,
        label_selector: Mapping[str, str] | None = None,
        owner_uid: str | None = None,
    ) -> int:
        if label_selector is None and owner_uid is None:
            with self._lock:
                k = self._kinds.get(kind)
                if k is None:
                    return 0
                return len(k.objects) if namespace is None else len(k.by_ns.get(namespace, ()))
        return len(self.list(kind, namespace, label_selector, owner_uid))

    def kinds(self) -> builtins.list[str]:
        with self._lock:
            return sorted(self._kinds)

    def aggregates(self) -> dict[str, object]:
        """A consistent snapshot of every aggregator's sums (an empty one's for a kind not yet listed)."""
        out: dict[str, object] = {}
        with self._lock:
            for kind, factory in self._aggregators.items():
                k = self._kinds.get(kind)
                agg = k.agg if k is not None and k.agg is not None else factory()
                out.update(agg.snapshot())
        return out
