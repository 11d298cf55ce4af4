"""``parse`` once per object version: readers that go over every workload object of a watch cache on each
request (usage, the preview's placed usage, admission) parse each ``(uid, resourceVersion)`` once.

A manifest without both (a document being written) is parsed every time. The cache is bounded (least
recently used out) and thread-safe; a cached refusal is raised again as the same ``SpecInvalid``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from pincompute.errors import SpecInvalid
from pincompute.specs import Workload, parse

MAX_ENTRIES = 50_000
_cache: OrderedDict[tuple[str, str, str], Workload | SpecInvalid] = OrderedDict()
_lock = threading.Lock()


def parse_version(manifest: Mapping[str, Any]) -> Workload:
    """``parse(manifest)``, remembered per (kind, uid, resourceVersion)."""
    meta = manifest.get("metadata") if isinstance(manifest.get("metadata"), Mapping) else {}
    uid, version = str((meta or {}).get("uid") or ""), str((meta or {}).get("resourceVersion") or "")
    if not uid or not version:
        return parse(manifest)
    key = (str(manifest.get("kind")), uid, version)
    with _lock:
        known = _cache.get(key)
        if known is not None:
            _cache.move_to_end(key)
    if known is None:
        try:
            known = parse(manifest)
        except SpecInvalid as exc:
            known = exc
        with _lock:
            _cache[key] = known
            while len(_cache) > MAX_ENTRIES:
                _cache.popitem(last=False)
    if isinstance(known, SpecInvalid):
        raise known
    return known
