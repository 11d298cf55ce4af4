"""Where one shard of a workload runs; shared by the scheduler (which decides) and translate (which obeys)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Placement:
    """One custom resource per member cluster: which cluster/zone, which shard, how many replicas.

    ``zone`` empty means the cluster spans several zones and translation pins each zone shard with a
    node selector; ``replicas`` None means "use the spec's own count (split across its zones)".
    """

    cluster: str
    zone: str = ""
    region: str = ""
    shard_index: int = 0
    shard_count: int = 1
    replicas: int | None = None


def split_counts(total: int, parts: int) -> list[int]:
    """Balanced split: sums to ``total``, sizes differ by at most one, earlier parts get the extra."""
    if parts <= 0:
        return []
    base, extra = divmod(max(total, 0), parts)
    return [base + (1 if index < extra else 0) for index in range(parts)]


def hpa_max_per_shard(max_replicas: int, shards: int) -> list[int]:
    """Each zone shard's HorizontalPodAutoscaler ``maxReplicas`` for a PinScaler's ``max_replicas`` over ``shards``
    shards: its balanced share, at least one (an HPA runs at least one pod). Translation writes these and admission
    counts their sum, so what the members may run is what is admitted."""
    return [max(1, share) for share in split_counts(max_replicas, shards)]


def split_replicas(total: int, zones: Sequence[str]) -> dict[str, int]:
    """Replicas per zone in the given zone order (deterministic: the first zones take the remainder)."""
    return dict(zip(zones, split_counts(total, len(zones)), strict=True))
