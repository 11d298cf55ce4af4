"""What the recorder writes for one host workload object: its entries (each with an idempotent key), from the
object itself, its revisions and the events of it and its pods on the host and every member (the live timeline's
own selection, ``workloads.timeline``). No database here: ``recorder`` compares with what is stored."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pincompute.kinds import KINDS
from workloads import timeline
from workloads.reads import Revision

Obj = dict[str, Any]
# The host conditions the federation sets, by the kind of history entry they are.
_CATEGORY = {"Admitted": "admission", "Scheduled": "placement"}


@dataclass(frozen=True)
class Draft:
    key: str
    entry: timeline.Entry


def _condition_drafts(conditions: Iterable[Obj], source: str, prefix: str = "") -> list[Draft]:
    drafts = []
    for c in conditions:
        found = timeline.condition_entries([c], source, prefix)
        if not found:
            continue
        type_ = str(c.get("type") or "")
        category = _CATEGORY.get(type_, "state") if not prefix else "placement" if type_ == "Scheduled" else "state"
        entry = found[0]
        key = f"state:{source}:{prefix}{type_}:{c.get('status')}:{c.get('lastTransitionTime')}"
        drafts.append(Draft(key, _with(entry, category=category)))
    return drafts


def _with(entry: timeline.Entry, **changes: Any) -> timeline.Entry:
    from dataclasses import replace

    return replace(entry, **changes)


def placement_of(obj: Obj) -> list[str]:
    return sorted({str(s.get("cluster")) for s in (obj.get("status") or {}).get("shards") or [] if s.get("cluster")})


def replicas_of(obj: Obj) -> int | None:
    value = (obj.get("spec") or {}).get("replicas")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def manifest_of(obj: Obj) -> Obj:
    """What the deleted workload's page shows as its spec: the object without its status and server fields."""
    meta = obj.get("metadata") or {}
    kept = {k: meta[k] for k in ("name", "namespace", "labels", "annotations") if meta.get(k)}
    return {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"), "metadata": kept, "spec": obj.get("spec")}


def changes(obj: Obj, before: Mapping[str, Any] | None, at: str) -> list[Draft]:
    """Entries for what changed since the stored record ``before`` (None: first seen): scale, placement,
    operations. Each key carries the object's generation or resourceVersion, so a pass seeing it again adds
    nothing and a later change back to an earlier value is a new entry."""
    meta = obj.get("metadata") or {}
    generation, version = meta.get("generation"), meta.get("resourceVersion")
    drafts = []
    replicas = replicas_of(obj)
    if before is not None and replicas is not None and replicas != before.get("replicas"):
        was = before.get("replicas")
        drafts.append(
            Draft(
                f"scale:{generation}",
                timeline.Entry(at, timeline.HOST, "scale", "normal", f"Scaled {was} → {replicas}", ""),
            )
        )
    placement = placement_of(obj)
    if placement and placement != list((before or {}).get("placement") or []):
        title = "Placed on " + ", ".join(placement)
        drafts.append(
            Draft(f"placement:{version}", timeline.Entry(at, timeline.HOST, "placement", "normal", title, ""))
        )
    old_ops = (((before or {}).get("manifest") or {}).get("spec") or {}).get("operations") or {}
    for op, value in sorted(((obj.get("spec") or {}).get("operations") or {}).items()):
        if before is None or value == old_ops.get(op):
            continue
        when = value.get("requestedAt") if isinstance(value, dict) else None
        title = f"Operation {op}" + ("" if isinstance(value, dict) else f" = {value}")
        message = ", ".join(f"{k}={v}" for k, v in sorted(value.items())) if isinstance(value, dict) else ""
        drafts.append(
            Draft(
                f"operation:{op}:{when or generation}",
                timeline.Entry(str(when or at), timeline.HOST, "operation", "normal", title, message),
            )
        )
    return drafts


def snapshot(obj: Obj, revisions: Iterable[Revision], host: Any, members: Mapping[str, Any]) -> list[Draft]:
    """Every entry the object and the caches show now (conditions, revisions, events; created)."""
    meta = obj.get("metadata") or {}
    kind, namespace, name = str(obj.get("kind")), str(meta.get("namespace")), str(meta.get("name"))
    status = obj.get("status") or {}
    drafts = _condition_drafts(status.get("conditions") or [], timeline.HOST)
    for shard in status.get("shards") or []:
        drafts += _condition_drafts(shard.get("conditions") or [], str(shard.get("cluster")), prefix="shard ")
    drafts += [Draft(f"revision:{e.message}", e) for e in timeline.revision_entries(revisions)]
    if meta.get("creationTimestamp"):
        created = timeline.Entry(
            str(meta["creationTimestamp"]), timeline.HOST, "state", "normal", "Created", f"{kind} {name}"
        )
        drafts.append(Draft("created", created))
    if host is not None:
        drafts += [_event_draft(e, timeline.HOST) for e in timeline.host_events(host, obj)]
    drafts += member_event_drafts(kind, namespace, name, host, members)
    return [d for d in drafts if d.entry.at]


def member_event_drafts(kind: str, namespace: str, name: str, host: Any, members: Mapping[str, Any]) -> list[Draft]:
    """The members' Events about the workload's shard and its pods (also once the host object is gone: its pods'
    last Events, Killing and the like, arrive after the deletion)."""
    siblings = timeline.siblings_of(host, namespace)
    drafts: list[Draft] = []
    for cluster, cache in sorted(members.items()):
        found = timeline.member_events(cache, kind, namespace, name, siblings)
        drafts += [_event_draft(e, cluster) for e in found]
    return [d for d in drafts if d.entry.at]


def _event_draft(event: Obj, source: str) -> Draft:
    meta = event.get("metadata") or {}
    ident = meta.get("uid") or f"{meta.get('namespace')}/{meta.get('name')}"
    return Draft(f"event:{source}:{ident}", timeline.event_entry(event, source))


def is_workload(obj: Obj) -> bool:
    return str(obj.get("kind")) in KINDS
