"""Reading the recorded history (the timeline, the deleted workloads' pages, the API and the CLI share these) and
pruning it. Tenancy: every read goes through ``visible_project`` (another tenant's project is ``NotFound``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction

from base.errors import Invalid, NotFound
from projects.access import visible_project
from projects.models import Project
from workloads.history.models import CATEGORIES, HistoryEntry, WorkloadRecord
from workloads.lookup import kind_named
from workloads.timeline import Entry


@dataclass(frozen=True)
class Window:
    """Which entries: at or after ``since``, at or before ``until``, of these ``categories`` (empty: every one)."""

    since: datetime | None = None
    until: datetime | None = None
    categories: frozenset[str] = frozenset()

    def admits(self, entry: Entry, moment: datetime | None) -> bool:
        if self.categories and entry.category not in self.categories:
            return False
        if self.since is None and self.until is None:
            return True
        return (
            moment is not None
            and (self.since is None or moment >= self.since)
            and (self.until is None or moment <= self.until)
        )


def categories_from(values: Iterable[str], field: str = "category") -> frozenset[str]:
    """The kinds of entry asked for (``state,event`` or repeated); ``Invalid`` naming ``field`` for another."""
    found = frozenset(c.strip() for value in values for c in value.split(",") if c.strip())
    unknown = sorted(found - set(CATEGORIES))
    if unknown:
        raise Invalid.on(field, f"{', '.join(unknown)}: not a kind of entry (one of {', '.join(CATEGORIES)})")
    return found


def entry_of(row: HistoryEntry) -> Entry:
    return Entry(
        at=row.at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        source=row.source,
        category=row.category,
        level=row.level,
        title=row.title,
        message=row.message,
        subject=row.subject,
        count=row.count,
    )


def entries_of(record: WorkloadRecord, window: Window | None = None) -> list[Entry]:
    """The record's entries, newest first, in ``window``."""
    rows = record.entries.all()
    if window is not None:
        if window.since is not None:
            rows = rows.filter(at__gte=window.since)
        if window.until is not None:
            rows = rows.filter(at__lte=window.until)
        if window.categories:
            rows = rows.filter(category__in=window.categories)
    return [entry_of(r) for r in rows.order_by("-at", "pk")]


def recorded(uid: str) -> list[Entry]:
    """A live workload's recorded entries (none before the recorder first saw it)."""
    record = WorkloadRecord.objects.filter(uid=uid).first() if uid else None
    return [] if record is None else entries_of(record)


def deleted_workloads(user: Any, project_name: str) -> tuple[Project, list[WorkloadRecord]]:
    project = visible_project(user, project_name)
    rows = WorkloadRecord.objects.filter(project=project, deleted_at__isnull=False).order_by("-deleted_at", "-pk")
    return project, list(rows)


def deleted_workload(user: Any, project_name: str, kind: str, name: str) -> WorkloadRecord:
    """The latest deleted workload ``kind/name`` of the project (a name may be used again: the newest one);
    ``NotFound`` for another tenant's, a live one's, or one pruned."""
    project = visible_project(user, project_name)
    kind = kind_named(kind)
    found = (
        WorkloadRecord.objects.filter(project=project, kind=kind, name=name, deleted_at__isnull=False)
        .order_by("-deleted_at", "-pk")
        .first()
    )
    if found is None:
        raise NotFound(f"No deleted {kind} named {name} in project {project.name}.")
    return found


def prune(now: datetime | None = None) -> dict[str, int]:
    """Drop the entries older than ``HISTORY_RETENTION_DAYS`` and the workloads deleted before it (with theirs)."""
    cutoff = (now or datetime.now(UTC)) - timedelta(days=settings.HISTORY_RETENTION_DAYS)
    with transaction.atomic():
        workloads, _ = WorkloadRecord.objects.filter(deleted_at__lt=cutoff).delete()
        entries, _ = HistoryEntry.objects.filter(at__lt=cutoff).delete()
    return {"workloads": workloads, "entries": entries}
