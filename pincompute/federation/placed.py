"""What one host object holds on each member it is placed on, read once per object version.

The federation's placement (``tier_requested`` of every candidate) and the portal's preview both sum, over every
admitted host object, its recorded shards' replicas times one replica's request. Parsing a spec and deriving its
request is the costly part and changes only when the object does, so ``placed_on`` remembers each object's rows by
``(kind, uid, resourceVersion)`` and each spec's request by its generation (a status write parses nothing), bounded
(least recently used out) and thread-safe: a call over 10k objects is then dictionary reads. An object without a uid
and resourceVersion (a document being written) is read every time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pincompute.errors import SpecInvalid
from pincompute.federation.admission import is_admitted
from pincompute.federation.propagation import placement_request, placements_of
from pincompute.quantity import Resources
from pincompute.runtime import RuntimeProfile
from pincompute.specs import Workload
from pincompute.tiers import Tier

MAX_ENTRIES = 50_000
Row = tuple[str, Tier, Resources]  # (member, tier, what its shard of the object requests there)
Parse = Callable[[str, Mapping[str, Any]], Workload]  # (kind, object): a cache's list items may lack their kind
_cache: OrderedDict[tuple[str, str, str, int], tuple[Row, ...]] = OrderedDict()
_requests: OrderedDict[tuple[str, str, str, int], tuple[Tier, Resources] | None] = OrderedDict()
_lock = threading.Lock()


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    with _lock:
        cache[key] = value
        while len(cache) > MAX_ENTRIES:
            cache.popitem(last=False)


def _request(kind: str, obj: Mapping[str, Any], profile: RuntimeProfile, parse: Parse) -> tuple[Tier, Resources] | None:
    """One replica's tier and request, once per spec generation."""
    meta = obj.get("metadata") or {}
    key = (kind, str(meta.get("uid") or ""), str(meta.get("generation") or ""), id(profile))
    with _lock:
        if key in _requests:
            return _requests[key]
    try:
        request = placement_request(parse(kind, obj), profile)
    except SpecInvalid:
        request = None
    answer = (request.tier, request.request_per_replica) if request is not None else None
    if key[1] and key[2]:
        _remember(_requests, key, answer)
    return answer


def _rows(kind: str, obj: Mapping[str, Any], profile: RuntimeProfile, parse: Parse) -> tuple[Row, ...]:
    if not is_admitted(obj):
        return ()
    shards = placements_of(obj.get("status"))
    request = _request(kind, obj, profile, parse) if shards else None
    if request is None:
        return ()
    tier, per_replica = request
    return tuple((s.cluster, tier, per_replica * (s.replicas if s.replicas is not None else 1)) for s in shards)


def placed_on(kind: str, obj: Mapping[str, Any], profile: RuntimeProfile, parse: Parse) -> tuple[Row, ...]:
    """The rows ``obj`` (of ``kind``) holds (none unless it is admitted and placed; an invalid spec holds none)."""
    meta = obj.get("metadata") or {}
    uid, version = str(meta.get("uid") or ""), str(meta.get("resourceVersion") or "")
    if not uid or not version:
        return _rows(kind, obj, profile, parse)
    key = (kind, uid, version, id(profile))
    with _lock:
        known = _cache.get(key)
        if known is not None:
            _cache.move_to_end(key)
            return known
    rows = _rows(kind, obj, profile, parse)
    _remember(_cache, key, rows)
    return rows


def placed_usage(
    objects: Iterable[tuple[str, Mapping[str, Any]]],
    profile: RuntimeProfile,
    parse: Parse,
    *,
    exclude: str = "",
) -> dict[str, dict[Tier, Resources]]:
    """Per member and tier, what ``objects`` ((kind, object) pairs) hold there (the one with uid ``exclude`` left
    out). Known versions are read under one lock and summed in plain integers: this runs over every host object on
    every preview and placement."""
    totals: dict[tuple[str, Tier], list[int]] = {}
    unknown: list[tuple[str, Mapping[str, Any]]] = []
    pid = id(profile)

    def add(rows: tuple[Row, ...]) -> None:
        for cluster, tier, request in rows:
            total = totals.get((cluster, tier))
            if total is None:
                totals[(cluster, tier)] = [request.cpu_milli, request.memory_bytes, request.gpu]
            else:
                total[0] += request.cpu_milli
                total[1] += request.memory_bytes
                total[2] += request.gpu

    with _lock:
        for kind, obj in objects:
            meta = obj.get("metadata") or {}
            uid = str(meta.get("uid") or "")
            if exclude and uid == exclude:
                continue
            rows = _cache.get((kind, uid, str(meta.get("resourceVersion") or ""), pid))
            if rows is None:
                unknown.append((kind, obj))
            else:
                add(rows)
    for kind, obj in unknown:
        add(placed_on(kind, obj, profile, parse))
    used: dict[str, dict[Tier, Resources]] = defaultdict(dict)
    for (cluster, tier), (cpu, memory, gpu) in totals.items():
        used[cluster][tier] = Resources(cpu, memory, gpu)
    return dict(used)
