"""Read the placement the portal wrote on a CR (labels or annotations), defaulting to this cluster."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pincompute.labels import (
    CLUSTER_ANNOTATION,
    REGION_ANNOTATION,
    REPLICAS_ANNOTATION,
    SHARD_COUNT_ANNOTATION,
    SHARD_INDEX_ANNOTATION,
    ZONE_ANNOTATION,
)
from pincompute.placement import Placement


def _int(value: str | None, default: int | None, minimum: int) -> int | None:
    if value is None or value == "":
        return default
    try:
        return max(minimum, int(value))
    except ValueError:
        return default


def placement_for(cr: Mapping[str, Any], cluster: str, zone: str, region: str = "") -> Placement:
    """Annotations win over labels (a label value cannot be empty or long); missing keys take this
    cluster's name and dominant node zone, shard 0 of 1 and the spec's own replica count.

    An explicitly empty zone (``pincompute.io/zone: ""`` annotation) means "this cluster spans the
    spec's zones": PinApp then makes one Deployment per zone pinned by node selector.
    """
    metadata = cr.get("metadata") or {}
    notes = {**(metadata.get("labels") or {}), **(metadata.get("annotations") or {})}
    count = _int(notes.get(SHARD_COUNT_ANNOTATION), 1, 1) or 1
    index = min(_int(notes.get(SHARD_INDEX_ANNOTATION), 0, 0) or 0, count - 1)
    return Placement(
        cluster=str(notes.get(CLUSTER_ANNOTATION) or cluster),
        zone=str(notes.get(ZONE_ANNOTATION, zone)),
        region=str(notes.get(REGION_ANNOTATION) or region),
        shard_index=index,
        shard_count=count,
        replicas=_int(notes.get(REPLICAS_ANNOTATION), None, 0),
    )
