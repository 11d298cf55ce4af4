"""Plan what to create, update and prune so the cluster matches the translation of one CR."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pincompute.labels import WORKLOAD_LABEL
from pincompute.translate.common import object_key
from pincompute.translate.compare import is_subset


@dataclass(frozen=True)
class Plan:
    create: list[dict[str, Any]]
    update: list[dict[str, Any]]
    prune: list[Mapping[str, Any]]

    @property
    def empty(self) -> bool:
        return not (self.create or self.update or self.prune)


def diff_objects(
    desired: Sequence[dict[str, Any]],
    live: Sequence[Mapping[str, Any]],
    *,
    owner_uid: str | None = None,
    owner_name: str | None = None,
) -> Plan:
    """Key by (apiVersion, kind, namespace, name); only objects this CR controls are ever pruned.

    The owner is read from the desired objects' controller reference unless given (it must be given
    when nothing is desired, e.g. a stopped PinPod without persistence).
    """
    if owner_uid is None or owner_name is None:
        for obj in desired:
            for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
                if ref.get("controller"):
                    owner_uid = owner_uid if owner_uid is not None else ref.get("uid")
                    owner_name = owner_name if owner_name is not None else ref.get("name")
    live_by_key = {object_key(o): o for o in live}
    desired_keys = {object_key(o) for o in desired}
    create = [o for o in desired if object_key(o) not in live_by_key]
    update = [o for o in desired if object_key(o) in live_by_key and not is_subset(o, live_by_key[object_key(o)])]
    prune = [
        o for key, o in sorted(live_by_key.items()) if key not in desired_keys and _owned(o, owner_uid, owner_name)
    ]
    return Plan(create, update, prune)


def _owned(obj: Mapping[str, Any], owner_uid: str | None, owner_name: str | None) -> bool:
    metadata = obj.get("metadata") or {}
    if owner_uid is None or (metadata.get("labels") or {}).get(WORKLOAD_LABEL) != owner_name:
        return False
    return any(ref.get("uid") == owner_uid and ref.get("controller") for ref in metadata.get("ownerReferences") or [])
