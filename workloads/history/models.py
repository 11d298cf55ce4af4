"""One row per workload the host ever held (by uid) and its history entries, each with an idempotent key.

A key names what an entry is about (``state:host:Ready:True:<time>``, ``event:member-a:<uid>``, ``scale:<generation>``),
so the recorder may see the same thing again (a relist, a restart) and write nothing new: rows are upserted on
``(record, key)``; an event seen again updates its count and time."""

from __future__ import annotations

from django.db import models

from projects.models import Project

CATEGORIES = ("state", "admission", "placement", "revision", "scale", "operation", "event")


class WorkloadRecord(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="workload_records")
    uid = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=40)
    name = models.CharField(max_length=253)
    namespace = models.CharField(max_length=63)
    manifest = models.JSONField(default=dict, help_text="the latest spec seen: the spec at deletion once deleted")
    resource_version = models.CharField(max_length=40, blank=True)
    replicas = models.IntegerField(null=True)
    placement = models.JSONField(default=list)
    created_at = models.DateTimeField(null=True)
    deleted_at = models.DateTimeField(null=True, db_index=True)

    class Meta:
        indexes = [models.Index(fields=["project", "kind", "name"])]

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name} ({self.uid})"


class HistoryEntry(models.Model):
    record = models.ForeignKey(WorkloadRecord, on_delete=models.CASCADE, related_name="entries")
    key = models.CharField(max_length=400)
    at = models.DateTimeField(db_index=True)
    category = models.CharField(max_length=16, choices=[(c, c) for c in CATEGORIES])
    level = models.CharField(max_length=8, default="normal")
    source = models.CharField(max_length=63)
    title = models.CharField(max_length=300)
    message = models.TextField(blank=True)
    subject = models.CharField(max_length=300, blank=True)
    count = models.PositiveIntegerField(default=1)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["record", "key"], name="history_entry_once")]
        indexes = [models.Index(fields=["record", "-at"])]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%dT%H:%M:%SZ} {self.category} {self.title}"
