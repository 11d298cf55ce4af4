"""Portal-wide models: the audit log and personal API tokens."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone


class AuditEventQuerySet(models.QuerySet["AuditEvent"]):
    def filtered(self, *, actor: str = "", action: str = "", project: str = "", cluster: str = "",
                 target: str = "") -> AuditEventQuerySet:
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
    """One row per mutation or shell session; written only through console.audit.record()."""

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
        indexes = [models.Index(fields=["target_kind", "target_name"])]

    def __str__(self) -> str:
        when = f"{self.created_at:%Y-%m-%d %H:%M:%S}"
        return f"{when} {self.actor_name} {self.action} {self.target_kind}/{self.target_name}"


TOKEN_PREFIX = "pct_"


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet["ApiToken"]):
    def active(self) -> ApiTokenQuerySet:
        now = timezone.now()
        return self.filter(revoked_at__isnull=True).filter(
            models.Q(expires_at__isnull=True) | models.Q(expires_at__gt=now)
        )


class ApiToken(models.Model):
    """A personal token for the CLI/SDK. Only its SHA-256 is stored; the secret is shown once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=80)
    key_id = models.CharField(max_length=16, unique=True)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["user", "name"], name="unique_token_name_per_user")]

    def __str__(self) -> str:
        return f"{self.name} ({self.key_id})"

    @staticmethod
    def generate() -> tuple[str, str, str]:
        """Return (raw token, key id, digest)."""
        key_id = secrets.token_hex(4)
        raw = f"{TOKEN_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        return raw, key_id, hash_token(raw)

    @property
    def is_active(self) -> bool:
        if self.revoked_at is not None:
            return False
        return self.expires_at is None or self.expires_at > timezone.now()
