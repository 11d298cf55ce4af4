"""What the federation has already placed on each member, per tier: the scheduler's ``tier_requested``.

Counted from the host objects' recorded placements (replicas of each shard times one replica's request,
the runtime profile included), so two decisions in a row see each other without waiting for pods. A
spec is parsed once per generation.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from typing import Any

from pincompute.errors import SpecInvalid
from pincompute.federation.admission import is_admitted
from pincompute.federation.propagation import placement_request, placements_of
from pincompute.operator.federation.host import HostRuntime
from pincompute.quantity import Resources
from pincompute.runtime import RuntimeProfile
from pincompute.specs import parse
from pincompute.tiers import Tier


class PlacedUsage:
    def __init__(self, host: HostRuntime, profile: RuntimeProfile) -> None:
        self.host, self.profile = host, profile
        self._requests: dict[str, tuple[int, Tier, Resources] | None] = {}
        self._lock = threading.Lock()

    def _per_replica(self, obj: dict[str, Any]) -> tuple[Tier, Resources] | None:
        meta = obj["metadata"]
        uid, generation = str(meta.get("uid")), int(meta.get("generation") or 0)
        with self._lock:
            cached = self._requests.get(uid)
        if cached is not None and cached[0] == generation:
            return cached[1], cached[2]
        try:
            request = placement_request(parse(obj), self.profile)
        except SpecInvalid:
            request = None
        if request is None:
            return None
        with self._lock:
            self._requests[uid] = (generation, request.tier, request.request_per_replica)
        return request.tier, request.request_per_replica

    def by_cluster(self, *, exclude: str = "") -> dict[str, dict[Tier, Resources]]:
        used: dict[str, dict[Tier, Resources]] = defaultdict(dict)
        for obj in self.host.workloads():
            if str(obj["metadata"].get("uid")) == exclude or not is_admitted(obj):
                continue
            shards = placements_of(obj.get("status"))
            if not shards:
                continue
            per = self._per_replica(obj)
            if per is None:
                continue
            tier, request = per
            for shard in shards:
                count = shard.replicas if shard.replicas is not None else 1
                used[shard.cluster][tier] = used[shard.cluster].get(tier, Resources()) + request * count
        return dict(used)
