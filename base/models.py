"""The audit log: one row per mutation or shell session, written only through ``base.audit.record``."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class AuditEventQuerySet(models.QuerySet["AuditEvent"]):
    def filtered(
        self, *, actor: str = "", action: str = "", project: str = "", cluster: str = "", target: str = ""
    ) -> AuditEventQuerySet:
        """The events matching every given filter. A value holding a NUL matches nothing: no stored text holds one,
        and PostgreSQL refuses it in a query (a 500 instead of an empty list)."""
        if any("\x00" in value for value in (actor, action, project, cluster, target)):
            return self.none()
        qs = self
        if actor:
            qs = qs.filter(actor_name__icontains=actor)
        if action:
            qs = qs.filter(action__istartswith=action)
        if project:
            qs = qs.filter(project_name=project)
        if cluster:
            qs = qs.filter(cluster=cluster)
        if target:
            qs = qs.filter(models.Q(target_name__icontains=target) | models.Q(target_kind__iexact=target))
        return qs


class AuditEvent(models.Model):
    """One row per mutation or shell session; written only through base.audit.record()."""

    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    actor_name = models.CharField(max_length=150, db_index=True)
    action = models.CharField(max_length=80, db_index=True)
    target_kind = models.CharField(max_length=80)
    target_name = models.CharField(max_length=253)
    project_name = models.CharField(max_length=63, blank=True, db_index=True)
    cluster = models.CharField(max_length=63, blank=True, db_index=True)
    request_id = models.CharField(max_length=64, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    summary = models.CharField(max_length=500, blank=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["target_kind", "target_name"], name="audit_target_idx")]

    def __str__(self) -> str:
        when = f"{self.created_at:%Y-%m-%d %H:%M:%S}"
        return f"{when} {self.actor_name} {self.action} {self.target_kind}/{self.target_name}"
