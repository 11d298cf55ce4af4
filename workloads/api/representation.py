"""The Compute API's slim, stable representations, built from what the watch caches hold.

A workload is what a developer needs of its host object: its kind, name, project and tier, its spec as
submitted, its version (what a change of the spec moves; also the ETag), the admission verdict, the status aggregated
across shards and each shard's cluster and status. No managedFields, uid, finalizers or other metadata.

A list serves the summary of each (``full=False``: what a table of workloads shows, without the spec, labels,
annotations, conditions and shard rows: about a tenth of the host object's bytes) unless asked for the full
representation, which a single workload always has.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.utils.dateparse import parse_datetime

from base.errors import Invalid
from pincompute.kinds import KINDS
from workloads.api.encoded import encode
from workloads.memo import VersionMemo
from workloads.reads import condition, row_of, shards_of
from workloads.timeline import Entry

Obj = dict[str, Any]
CONDITION_FIELDS = ("type", "status", "reason", "message", "lastTransitionTime")


def etag(version: str) -> str:
    return f'"{version}"'


_REPRESENTATIONS: VersionMemo[Obj] = VersionMemo()
_TEXTS: VersionMemo[str] = VersionMemo()


def workload(obj: Obj, project: str, *, full: bool = True) -> Obj:
    """The representation of one host workload object of ``project`` (``full=False``: its summary). Remembered
    by the object's version: the result is shared, never change it."""
    return _REPRESENTATIONS.get(obj, (project, full), lambda: _workload(obj, project, full))


def workload_json(obj: Obj, project: str, *, full: bool = True) -> str:
    """``workload``'s JSON text as the API's renderer encodes it, remembered by the object's version too (a list
    page splices the texts: ``workloads.api.encoded``)."""
    return _TEXTS.get(obj, (project, full), lambda: encode(workload(obj, project, full=full)))


def _workload(obj: Obj, project: str, full: bool) -> Obj:
    kind = str(obj.get("kind") or "")
    info = KINDS[kind]
    meta = obj.get("metadata") or {}
    status = obj.get("status") or {}
    row = row_of(obj, info, project)
    admitted = condition(obj, "Admitted")
    out: Obj = {
        "apiVersion": str(obj.get("apiVersion") or ""),
        "kind": kind,
        "name": row.name,
        "project": project,
        "tier": row.tier,
        "version": row.version,
        "admission": {
            "admitted": row.admitted,
            "reason": str(admitted.get("reason") or ""),
            "message": str(admitted.get("message") or ""),
        },
        "status": {
            "state": row.status,
            "reason": row.reason,
            "phase": row.phase,
            "ready": row.ready,
            "desired": row.desired,
            "clusters": list(row.clusters),
        },
        "createdAt": row.created or None,
        "deleting": bool(meta.get("deletionTimestamp")),
    }
    if not full:
        return out
    out["labels"] = dict(meta.get("labels") or {})
    out["annotations"] = dict(meta.get("annotations") or {})
    out["spec"] = obj.get("spec") or {}
    out["status"]["conditions"] = [
        {key: str(c.get(key) or "") for key in CONDITION_FIELDS} for c in status.get("conditions") or []
    ]
    out["shards"] = [
        {
            "cluster": s.cluster,
            "zone": s.zone,
            "replicas": s.replicas,
            "ready": s.ready,
            "state": s.state,
            "message": s.message,
            "lastSeen": s.last_seen or None,
            "unreachableSince": s.unreachable_since or None,
        }
        for s in shards_of(obj)
    ]
    return out


def entry(item: Entry, workload: tuple[str, str] | None = None) -> Obj:
    """One timeline entry; ``workload`` (kind, name) on a project's timeline."""
    out: Obj = {
        "at": item.at,
        "source": item.source,
        "category": item.category,
        "level": item.level,
        "title": item.title,
        "message": item.message,
        "subject": item.subject,
        "count": item.count,
    }
    if workload is not None:
        out["workload"] = {"kind": workload[0], "name": workload[1]}
    return out


def parse_moment(value: str, field: str) -> datetime:
    """An ISO-8601 time from a query parameter (no zone: UTC); ``Invalid`` naming ``field`` otherwise."""
    try:
        moment = parse_datetime(value.strip().replace(" ", "+"))  # a '+' the query string turned into a space
    except ValueError:
        moment = None
    if moment is None:
        raise Invalid.on(field, "must be an ISO-8601 time, e.g. 2026-11-22T00:00:00Z")
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def parse_moment_or_none(value: str) -> datetime | None:
    try:
        return parse_moment(value, "at")
    except Invalid:
        return None
