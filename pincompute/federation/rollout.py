"""A PinApp edit reaches its zone shards one zone at a time, across member clusters.

The rule is the translator's (``translate.rollout``, ``spec.rollout.zoneOrder``, zones without a shard
skipped): the first zone whose shard is not yet current, updated and available is the one allowed to
change; the
shards of later zones keep their live pod template (everything else, replicas and operations included,
reaches them at once). A shard not created yet takes the new spec: there is nothing to hold back.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pincompute.placement import Placement
from pincompute.specs import PinApp
from pincompute.translate.rollout import ZoneRollout, rollout_order


@dataclass(frozen=True)
class LiveShard:
    """A shard's member custom resource as last seen."""

    spec: Mapping[str, Any]
    generation: int
    observed_generation: int
    ready: bool
    replicas: int
    updated: int
    available: int

    @classmethod
    def of(cls, obj: Mapping[str, Any]) -> LiveShard:
        meta, status = obj.get("metadata") or {}, obj.get("status") or {}
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])
        return cls(
            obj.get("spec") or {},
            int(meta.get("generation") or 0),
            int(status.get("observedGeneration") or 0),
            ready,
            int(status.get("replicas") or 0),
            int(status.get("updatedReplicas") or 0),
            int(status.get("readyReplicas") or 0),
        )

    def progress(self, template: Any, wanted: int) -> ZoneRollout:
        """How far this shard is with ``template`` at ``wanted`` replicas."""
        current = self.spec.get("template") == template and self.observed_generation >= self.generation
        return ZoneRollout(current and self.ready, wanted, self.updated, self.available)


def shard_specs(
    spec: Mapping[str, Any],
    app: PinApp | None,
    shards: Sequence[Placement],
    live: Mapping[str, LiveShard],
) -> dict[str, dict[str, Any]]:
    """The spec each shard (by cluster) gets now: ``spec``, except that a PinApp's zones after the one
    rolling keep their live ``template``. ``app`` is the parsed ``spec`` when it is a PinApp."""
    out = {p.cluster: copy.deepcopy(dict(spec)) for p in shards}
    if app is None:
        return out
    template = spec.get("template")
    progress = {}
    for placement in shards:
        shard = live.get(placement.cluster)
        if shard is not None and placement.zone:
            wanted = placement.replicas if placement.replicas is not None else app.replicas
            progress[placement.zone] = shard.progress(template, wanted)
    placed = [p.zone for p in shards if p.zone]
    order = [z for z in rollout_order(app) if z in placed] + sorted(z for z in placed if z not in app.zones)
    rolling = next((i for i, zone in enumerate(order) if zone not in progress or not progress[zone].done), None)
    if rolling is None:
        return out
    held = set(order[rolling + 1 :])
    for placement in shards:
        shard = live.get(placement.cluster)
        if shard is not None and placement.zone in held and "template" in shard.spec:
            out[placement.cluster]["template"] = copy.deepcopy(shard.spec["template"])
    return out
