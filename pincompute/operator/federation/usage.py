"""What the federation has already placed on each member, per tier: the scheduler's ``tier_requested``.

Counted from the host objects' recorded placements (replicas of each shard times one replica's request,
the runtime profile included), so two decisions in a row see each other without waiting for pods. Each
object is read once per version and its spec parsed once per generation (``federation.placed``).
"""

from __future__ import annotations

from pincompute.federation.placed import placed_usage
from pincompute.operator.federation.host import HostRuntime
from pincompute.quantity import Resources
from pincompute.runtime import RuntimeProfile
from pincompute.specs import parse
from pincompute.tiers import Tier


class PlacedUsage:
    def __init__(self, host: HostRuntime, profile: RuntimeProfile) -> None:
        self.host, self.profile = host, profile

    def by_cluster(self, *, exclude: str = "") -> dict[str, dict[Tier, Resources]]:
        objects = ((str(obj.get("kind")), obj) for obj in self.host.workloads())
        return placed_usage(objects, self.profile, lambda _kind, obj: parse(obj), exclude=exclude)
