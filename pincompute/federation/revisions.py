"""Every accepted spec of a host object kept as a ControllerRevision (the Kubernetes way), and the diff
of any two.

A revision is named after the kind, the workload and its spec hash, so re-accepting an earlier spec (a
rollback) finds its revision again and only raises its number, as a Deployment does with its
ReplicaSets. The newest ``HISTORY`` revisions are kept; the current one never goes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pincompute.federation.propagation import spec_hash
from pincompute.labels import (
    KIND_LABEL,
    MANAGED_BY,
    MANAGED_BY_LABEL,
    SPEC_HASH_ANNOTATION,
    WORKLOAD_LABEL,
)

HISTORY = 10


def revision_name(kind: str, name: str, spec: Mapping[str, Any]) -> str:
    return f"{kind.lower()}-{name}-{spec_hash(spec)[:10]}"


def revision_selector(kind: str, name: str) -> dict[str, str]:
    return {KIND_LABEL: kind, WORKLOAD_LABEL: name, MANAGED_BY_LABEL: MANAGED_BY}


def revision_manifest(host: Mapping[str, Any], number: int) -> dict[str, Any]:
    """The ControllerRevision of ``host``'s current spec, numbered ``number``, owned by ``host`` (so the
    garbage collector removes the history with the object)."""
    meta = host.get("metadata") or {}
    kind, name, spec = str(host.get("kind")), str(meta.get("name")), host.get("spec") or {}
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": revision_name(kind, name, spec),
            "namespace": meta.get("namespace"),
            "labels": revision_selector(kind, name),
            "annotations": {SPEC_HASH_ANNOTATION: spec_hash(spec)},
            "ownerReferences": [
                {
                    "apiVersion": host.get("apiVersion"),
                    "kind": kind,
                    "name": name,
                    "uid": meta.get("uid"),
                    "controller": True,
                    "blockOwnerDeletion": False,
                }
            ],
        },
        "data": {"spec": spec},
        "revision": number,
    }


def to_prune(revisions: Sequence[Mapping[str, Any]], current: str, keep: int = HISTORY) -> list[str]:
    """Names of the revisions beyond the newest ``keep`` (never ``current``)."""
    ordered = sorted(revisions, key=lambda r: int(r.get("revision") or 0), reverse=True)
    names = [str((r.get("metadata") or {}).get("name")) for r in ordered]
    return [n for n in names[keep:] if n != current]


@dataclass(frozen=True)
class Change:
    """One field that differs: ``before``/``after`` are None where the field is absent."""

    path: str
    before: Any
    after: Any


def spec_changes(before: Any, after: Any, path: str = "spec") -> list[Change]:
    """Field-level differences between two specs (objects by key, lists by index), in path order."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        changes: list[Change] = []
        for key in sorted(set(before) | set(after), key=str):
            changes += spec_changes(before.get(key), after.get(key), f"{path}.{key}")
        return changes
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        pairs = enumerate(zip(before, after, strict=True))
        return [c for i, (a, b) in pairs for c in spec_changes(a, b, f"{path}[{i}]")]
    return [] if before == after else [Change(path, before, after)]


def admitted_view(
    host: Mapping[str, Any], generation: int, admitted_hash: str, revisions: Sequence[Mapping[str, Any]]
) -> dict[str, Any] | None:
    """``host`` as admission admitted it: the spec of hash ``admitted_hash`` (its own when that is the spec it has
    now, else the revision of that hash it owns) at ``generation``; None when no revision holds that spec. A
    change waiting for quota leaves the members on this (``federation.admission``)."""
    meta = host.get("metadata") or {}
    if spec_hash(host.get("spec") or {}) == admitted_hash:
        return {**host, "metadata": dict(meta)}
    uid = meta.get("uid")
    for revision in revisions:
        rmeta = revision.get("metadata") or {}
        owned = any(ref.get("uid") == uid for ref in rmeta.get("ownerReferences") or [])
        if owned and (rmeta.get("annotations") or {}).get(SPEC_HASH_ANNOTATION) == admitted_hash:
            spec = (revision.get("data") or {}).get("spec") or {}
            return {**host, "spec": spec, "metadata": {**meta, "generation": generation}}
    return None
