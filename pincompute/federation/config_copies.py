"""Which of a project's Secrets and ConfigMaps each member holds: exactly those the workloads placed there reference,
as the federation's copies of the host's objects, and the checksum that rolls a workload's pods when one changes.

Pure: given the project's host workloads (with the placement their status records) and the host's objects, the
copies each member should hold. The operator (``operator/federation/config_copier.py``) applies them and deletes
its copies nobody needs any more (only those carrying ``COPY_LABEL``: never a member's own objects).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pincompute.config_refs import ConfigRef, references
from pincompute.configs import ConfigKind
from pincompute.federation.propagation import placements_of
from pincompute.labels import MANAGED_BY, MANAGED_BY_LABEL, PROJECT_LABEL

COPY_LABEL = "pincompute.io/config-copy"  # "true" on a member's copy the federation made (and may delete)
USED_BY_ANNOTATION = "pincompute.io/used-by"  # the workloads placed on that member that reference it: Kind/name, ...
SOURCE_HASH_ANNOTATION = "pincompute.io/source-hash"  # the content hash of the host object it copies
ROLL_ON_CHANGE = "rollOnChange"  # a reference with ``rollOnChange: false`` does not roll the pods when it changes
_CONTENT = ("data", "binaryData", "stringData", "type", "immutable")

ObjectKey = tuple[ConfigKind, str]


@dataclass(frozen=True)
class Copy:
    """One object a member should hold: the manifest to apply and its content hash."""

    kind: ConfigKind
    name: str
    manifest: dict[str, Any]
    source_hash: str


def content_hash(obj: Mapping[str, Any]) -> str:
    """A short digest of what a pod reads from the object (its data and type), not its metadata."""
    content = {k: obj[k] for k in _CONTENT if k in obj}
    return hashlib.sha256(json.dumps(content, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def _rolls(ref: ConfigRef, manifest: Mapping[str, Any]) -> bool:
    return _source_of(manifest, ref.path).get(ROLL_ON_CHANGE) is not False


def _source_of(manifest: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    """The reference object at ``path`` (the field holding the name: its parent is the reference)."""
    node: Any = manifest
    for part in path.replace("[", ".").replace("]", "").split(".")[:-1]:
        node = node[int(part)] if isinstance(node, list) else (node or {}).get(part)
    return node if isinstance(node, Mapping) else {}


def used(manifest: Mapping[str, Any]) -> set[ObjectKey]:
    return {(r.kind, r.name) for r in references(manifest) if r.name}


def checksum(manifest: Mapping[str, Any], held: Mapping[ObjectKey, Mapping[str, Any]]) -> str:
    """The digest of the content of every object the workload references and rolls on (``rollOnChange`` not false);
    "" when there is none. Its change on the pod template rolls the pods."""
    rolling = sorted({(r.kind, r.name) for r in references(manifest) if r.name and _rolls(r, manifest)})
    parts = [f"{kind}/{name}={content_hash(held[(kind, name)])}" for kind, name in rolling if (kind, name) in held]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16] if parts else ""


def member_copy(obj: Mapping[str, Any], users: Iterable[str]) -> Copy:
    """The member's copy of a host object: its content, our labels, and who needs it."""
    meta = obj.get("metadata") or {}
    kind: ConfigKind = "Secret" if obj.get("kind") == "Secret" else "ConfigMap"
    source_hash = content_hash(obj)
    labels = {COPY_LABEL: "true", MANAGED_BY_LABEL: MANAGED_BY}
    project = (meta.get("labels") or {}).get(PROJECT_LABEL)
    if project:
        labels[PROJECT_LABEL] = str(project)
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": kind,
        "metadata": {
            "name": meta.get("name"),
            "namespace": meta.get("namespace"),
            "labels": labels,
            "annotations": {USED_BY_ANNOTATION: ",".join(sorted(set(users))), SOURCE_HASH_ANNOTATION: source_hash},
        },
        **{k: json.loads(json.dumps(obj[k])) for k in _CONTENT if k in obj},
    }
    return Copy(kind, str(meta.get("name")), manifest, source_hash)


def plan(
    workloads: Iterable[Mapping[str, Any]], held: Mapping[ObjectKey, Mapping[str, Any]]
) -> dict[str, dict[ObjectKey, Copy]]:
    """For each member a workload of the project is placed on, the copies it should hold: every held object some
    workload placed there references (an absent one, optional, is not copied). A member not in the result holds
    none. ``workloads`` are the host objects, whose ``status.placement`` says where their shards are."""
    users: dict[str, dict[ObjectKey, set[str]]] = {}
    for workload in workloads:
        meta = workload.get("metadata") or {}
        if meta.get("deletionTimestamp"):
            continue
        wanted = used(workload) & held.keys()
        who = f"{workload.get('kind')}/{meta.get('name')}"
        for placement in placements_of(workload.get("status")):
            for key in wanted:
                users.setdefault(placement.cluster, {}).setdefault(key, set()).add(who)
    return {
        cluster: {key: member_copy(held[key], who) for key, who in sorted(objects.items())}
        for cluster, objects in sorted(users.items())
    }


def same_copy(desired: Copy, live: Mapping[str, Any] | None) -> bool:
    """Whether the member's object already is this copy (content and who needs it)."""
    if live is None:
        return False
    notes = (live.get("metadata") or {}).get("annotations") or {}
    want = desired.manifest["metadata"]["annotations"]
    return all(notes.get(k) == v for k, v in want.items()) and content_hash(live) == desired.source_hash
