"""A workload's insights timeline: its state changes and the Kubernetes events of everything it is, merged
in time order.

- State changes: each condition of the host object (Admitted, Scheduled, Ready, Progressing, Degraded)
  at its last transition, each shard's own conditions per member, and each accepted revision.
- Events of the host object (admission, placement, propagation), and on every member the events whose
  involved object is the workload's: its shard (the same kind and name), the objects the shard owns
  (Deployments, Jobs: by owner uid in the cache), its pods (by label), and the native objects the caches
  do not hold (ReplicaSets, DaemonSets, CronJobs, HPAs, Services, ...) by name: the workload's name or
  its name followed by ``-`` unless another workload of the namespace has the longer matching name.
- What the recorder wrote (``workloads.history``), merged in: transitions, admission, placement, scale and
  operations the caches no longer show, events expired in the apiserver.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from clusters import runtime
from pincompute.kinds import KINDS
from pincompute.labels import KIND_LABEL, WORKLOAD_LABEL
from workloads.reads import Revision, parse_time

Obj = dict[str, Any]
LIMIT = 200
HOST = "host"
_OWNED_KINDS = ("deployments", "jobs")


@dataclass(frozen=True)
class Entry:
    at: str  # RFC 3339
    source: str  # "host" or a member's name
    category: str  # "state" | "event" | "revision"; recorded: also "admission" | "placement" | "scale" | "operation"
    level: str  # "normal" | "warning"
    title: str
    message: str
    subject: str = ""  # the involved object ("Pod web-abc")
    count: int = 1

    @property
    def sort_key(self) -> str:
        moment = parse_time(self.at)
        return moment.isoformat() if moment else ""


_GOOD = {"Admitted": "True", "Scheduled": "True", "Ready": "True", "Progressing": "False", "Degraded": "False"}


def condition_entries(conditions: Iterable[Obj], source: str, prefix: str = "") -> list[Entry]:
    entries = []
    for c in conditions:
        when = str(c.get("lastTransitionTime") or "")
        if not when:
            continue
        type_, status = str(c.get("type") or ""), str(c.get("status") or "")
        good = _GOOD.get(type_)
        level = "normal" if good is None or status == good else "warning"
        reason = str(c.get("reason") or "")
        entries.append(
            Entry(
                at=when,
                source=source,
                category="state",
                level=level,
                title=f"{prefix}{type_} → {status}" + (f" ({reason})" if reason else ""),
                message=str(c.get("message") or ""),
            )
        )
    return entries


def event_entry(event: Obj, source: str) -> Entry:
    involved = event.get("involvedObject") or {}
    when = (
        event.get("lastTimestamp")
        or (event.get("series") or {}).get("lastObservedTime")
        or event.get("eventTime")
        or event.get("firstTimestamp")
        or (event.get("metadata") or {}).get("creationTimestamp")
        or ""
    )
    return Entry(
        at=str(when),
        source=source,
        category="event",
        level="warning" if event.get("type") == "Warning" else "normal",
        title=str(event.get("reason") or ""),
        message=str(event.get("message") or ""),
        subject=f"{involved.get('kind', '')} {involved.get('name', '')}".strip(),
        count=int(event.get("count") or (event.get("series") or {}).get("count") or 1),
    )


def revision_entries(revisions: Iterable[Revision]) -> list[Entry]:
    return [
        Entry(
            at=r.created,
            source=HOST,
            category="revision",
            level="normal",
            title=f"Revision {r.number} accepted",
            message=r.name,
        )
        for r in revisions
        if r.created
    ]


def _claims(name: str, involved: str, siblings: Iterable[str]) -> bool:
    """``involved`` (an object name) is one of workload ``name``'s generated objects by its name."""
    if involved != name and not involved.startswith(f"{name}-"):
        return False
    longer = [s for s in siblings if len(s) > len(name) and (involved == s or involved.startswith(f"{s}-"))]
    return not longer


def member_events(cache: Any, kind: str, namespace: str, name: str, siblings: Iterable[str]) -> list[Obj]:
    """Events in ``cache`` about the workload's shard and what it owns (see the module's docstring)."""
    shard = cache.get(KINDS[kind].plural, namespace, name)
    uids: set[str] = set()
    if shard is not None:
        uid = str((shard.get("metadata") or {}).get("uid") or "")
        if uid:
            uids.add(uid)
            for plural in _OWNED_KINDS:
                uids |= {
                    str((o.get("metadata") or {}).get("uid")) for o in cache.list(plural, namespace, owner_uid=uid)
                }
    selector = {WORKLOAD_LABEL: name, KIND_LABEL: kind}
    pods = {str((p.get("metadata") or {}).get("name")) for p in cache.list("pods", namespace, label_selector=selector)}
    siblings = [s for s in siblings if s != name]
    found = []
    for event in cache.list("events", namespace):
        involved = event.get("involvedObject") or {}
        ikind, iname = str(involved.get("kind") or ""), str(involved.get("name") or "")
        if (
            str(involved.get("uid") or "") in uids
            or (ikind == kind and iname == name)
            or (ikind == "Pod" and iname in pods)
            or (ikind not in KINDS and _claims(name, iname, siblings))
        ):
            found.append(event)
    return found


def host_events(host: Any, obj: Obj) -> list[Obj]:
    meta = obj.get("metadata") or {}
    uid, kind, name = meta.get("uid"), obj.get("kind"), meta.get("name")
    found = []
    for event in host.list("events", str(meta.get("namespace"))):
        involved = event.get("involvedObject") or {}
        if (uid and involved.get("uid") == uid) or (involved.get("kind") == kind and involved.get("name") == name):
            found.append(event)
    return found


def siblings_of(host: Any, namespace: str) -> list[str]:
    """Names of every workload of the namespace (any kind): the name rule's tie breaker."""
    if host is None:
        return []
    return [
        str((o.get("metadata") or {}).get("name")) for info in KINDS.values() for o in host.list(info.plural, namespace)
    ]


def timeline(obj: Obj, revisions: Iterable[Revision], limit: int = LIMIT) -> list[Entry]:
    """Every entry, newest first (at most ``limit``)."""
    meta = obj.get("metadata") or {}
    from workloads.history.services import recorded  # the history app reads timeline's Entry

    kind, namespace, name = str(obj.get("kind")), str(meta.get("namespace")), str(meta.get("name"))
    status = obj.get("status") or {}
    entries = condition_entries(status.get("conditions") or [], HOST)
    for shard in status.get("shards") or []:
        entries += condition_entries(shard.get("conditions") or [], str(shard.get("cluster")), prefix="shard ")
    entries += revision_entries(revisions)
    if meta.get("creationTimestamp"):
        entries.append(Entry(str(meta["creationTimestamp"]), HOST, "state", "normal", "Created", f"{kind} {name}"))
    host = runtime.host_cache()
    if host is not None:
        entries += [event_entry(e, HOST) for e in host_events(host, obj)]
    siblings = siblings_of(host, namespace)
    for cluster, cache in sorted(runtime.member_caches().items()):
        entries += [event_entry(e, cluster) for e in member_events(cache, kind, namespace, name, siblings)]
    entries = merged(entries, recorded(str(meta.get("uid") or "")))
    entries.sort(key=lambda e: (e.sort_key, e.category != "state"), reverse=True)
    return entries[:limit]


def merged(live: list[Entry], history: list[Entry]) -> list[Entry]:
    """The recorded history (``workloads.history``: what the caches no longer show, each entry of its own kind)
    and the live entries it does not hold yet."""
    seen = {(e.sort_key, e.source, e.title, e.subject) for e in history}
    return history + [e for e in live if (e.sort_key, e.source, e.title, e.subject) not in seen]
