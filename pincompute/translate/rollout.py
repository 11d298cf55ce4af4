"""Zone-ordered rollout of a PinApp: one zone at a time, in ``spec.rollout.zoneOrder``."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pincompute.labels import ZONE_LABEL
from pincompute.specs import PinApp
from pincompute.translate.common import object_key


@dataclass(frozen=True)
class ZoneRollout:
    """A zone shard's progress: ``current`` = its Deployment already has the desired pod template."""

    current: bool
    replicas: int
    updated: int
    available: int

    @property
    def done(self) -> bool:
        return self.current and self.updated >= self.replicas and self.available >= self.replicas


def rollout_order(spec: PinApp) -> list[str]:
    return list(spec.rollout.zone_order)


def next_zone_to_roll(spec: PinApp, shard_statuses: Mapping[str, ZoneRollout]) -> str | None:
    """The zone allowed to change now: the first in order that is not fully updated and available.

    A zone with no status yet (its cluster has not reported) blocks the zones after it. None: all done.
    """
    for zone in rollout_order(spec):
        status = shard_statuses.get(zone)
        if status is None or not status.done:
            return zone
    return None


def gate_zone_rollout(
    spec: PinApp,
    desired: Sequence[dict[str, Any]],
    live: Sequence[Mapping[str, Any]],
    shard_statuses: Mapping[str, ZoneRollout],
) -> list[dict[str, Any]]:
    """Hold back the pod template of zones after the rolling one by reusing their live template."""
    allowed = next_zone_to_roll(spec, shard_statuses)
    order = rollout_order(spec)
    if allowed is None:
        return list(desired)
    held = set(order[order.index(allowed) + 1 :])
    live_by_key = {object_key(o): o for o in live}
    result = []
    for obj in desired:
        zone = ((obj.get("metadata") or {}).get("labels") or {}).get(ZONE_LABEL)
        existing = live_by_key.get(object_key(obj))
        if obj.get("kind") == "Deployment" and zone in held and existing is not None:
            obj = copy.deepcopy(obj)
            obj["spec"]["template"] = copy.deepcopy(existing["spec"]["template"])
        result.append(obj)
    return result
