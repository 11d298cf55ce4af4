"""One pass of the recorder over the host's and the members' watch caches (the web's own, ``clusters.runtime``):
every workload object's entries upserted by key, its record's latest manifest kept, and a record whose object the
synced host no longer holds marked deleted. Idempotent: a restarted recorder re-derives the same keys from the
caches and compares changes with the stored record, so it writes nothing twice."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction

from clusters import runtime
from pincompute.kinds import KINDS
from projects.models import Project
from workloads.history import derive
from workloads.history.models import HistoryEntry, WorkloadRecord
from workloads.reads import parse_time, revisions_of

log = logging.getLogger(__name__)
_UPDATED = ["at", "level", "title", "message", "count"]


class Recorder:
    def __init__(self) -> None:
        self._written: dict[int, dict[str, int]] = {}  # record pk -> key -> count stored

    def pass_once(self) -> int:
        """Entries written (new or updated); 0 while the host's cache is not synced (nothing is judged deleted)."""
        host = runtime.host_cache()
        if host is None or not host.synced:
            return 0
        members = runtime.member_caches()
        projects = {p.namespace: p for p in Project.objects.all()}
        watched = set(host.watched())
        kinds = [kind for kind, info in KINDS.items() if info.plural in watched]
        live: set[str] = set()
        written = 0
        for kind in kinds:
            for obj in host.list(KINDS[kind].plural):
                meta = obj.get("metadata") or {}
                project = projects.get(str(meta.get("namespace")))
                if project is None or not meta.get("uid"):
                    continue
                live.add(str(meta["uid"]))
                written += self._record(obj, project, host, members)
        return written + self._mark_deleted(live, kinds) + self._after_deletion(host, members)

    def _after_deletion(self, host: Any, members: dict[str, Any]) -> int:
        """The Events of a recently deleted workload's pods (their termination comes after the host object is gone),
        for ``HISTORY_AFTER_DELETION_SECONDS``."""
        since = datetime.now(UTC) - timedelta(seconds=settings.HISTORY_AFTER_DELETION_SECONDS)
        written = 0
        for record in WorkloadRecord.objects.filter(deleted_at__gte=since):
            drafts = derive.member_event_drafts(record.kind, record.namespace, record.name, host, members)
            written += self._upsert(record, drafts)
        return written

    def _record(self, obj: dict[str, Any], project: Project, host: Any, members: dict[str, Any]) -> int:
        meta = obj.get("metadata") or {}
        now = datetime.now(UTC)
        record = WorkloadRecord.objects.filter(uid=meta["uid"]).first()
        before = (
            None
            if record is None
            else {"replicas": record.replicas, "placement": record.placement, "manifest": record.manifest}
        )
        drafts = derive.snapshot(obj, revisions_of(obj), host, members)
        drafts += derive.changes(obj, before, now.strftime("%Y-%m-%dT%H:%M:%SZ"))
        version = str(meta.get("resourceVersion") or "")
        with transaction.atomic():
            if record is None:
                record = WorkloadRecord.objects.create(
                    project=project,
                    uid=meta["uid"],
                    kind=str(obj.get("kind")),
                    name=str(meta.get("name")),
                    namespace=str(meta.get("namespace")),
                    created_at=parse_time(meta.get("creationTimestamp")) or now,
                )
            if record.resource_version != version:
                record.manifest = derive.manifest_of(obj)
                record.replicas = derive.replicas_of(obj)
                record.placement = derive.placement_of(obj) or record.placement
                record.resource_version = version
                record.save(update_fields=["manifest", "replicas", "placement", "resource_version"])
            return self._upsert(record, drafts)

    def _known(self, record: WorkloadRecord) -> dict[str, int]:
        known = self._written.get(record.pk)
        if known is None:
            known = self._written[record.pk] = dict(record.entries.values_list("key", "count"))
        return known

    def _upsert(self, record: WorkloadRecord, drafts: list[derive.Draft]) -> int:
        known = self._known(record)
        rows: dict[str, HistoryEntry] = {}
        for draft in drafts:
            e = draft.entry
            at = parse_time(e.at)
            if at is None or known.get(draft.key) == e.count:
                continue
            rows[draft.key] = HistoryEntry(
                record=record,
                key=draft.key[:400],
                at=at,
                category=e.category,
                level=e.level,
                source=e.source[:63],
                title=e.title[:300],
                message=e.message,
                subject=e.subject[:300],
                count=max(1, e.count),
            )
        if rows:
            HistoryEntry.objects.bulk_create(
                list(rows.values()), update_conflicts=True, unique_fields=["record", "key"], update_fields=_UPDATED
            )
            known.update({key: row.count for key, row in rows.items()})
        return len(rows)

    def _mark_deleted(self, live: set[str], kinds: list[str]) -> int:
        gone = WorkloadRecord.objects.filter(deleted_at__isnull=True, kind__in=kinds).exclude(uid__in=live)
        now = datetime.now(UTC)
        count = 0
        for record in gone:
            with transaction.atomic():
                record.deleted_at = now
                record.save(update_fields=["deleted_at"])
                HistoryEntry.objects.get_or_create(
                    record=record,
                    key="deleted",
                    defaults={
                        "at": now,
                        "category": "state",
                        "source": "host",
                        "title": "Deleted",
                        "message": f"{record.kind} {record.name}",
                    },
                )
            log.info("history: %s deleted", record)
            count += 1
        return count
