"""An access request (who asks for what, for how long, why; who decided) and the grant it makes (or an owner's
direct grant). A grant is live while ``ends_at`` is in the future: every authorization check compares it, so the
access ends on time even when the expiry task does not run; ending early (revoke) moves ``ends_at`` to now."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from projects.models import Project, ProjectRole

SIDECAR_EXEC = "sidecar-exec"


class Access(models.TextChoices):
    """What may be asked for: a role in the project, or a shell in its pods' platform sidecars."""

    VIEWER = ProjectRole.VIEWER.value, "Viewer"
    DEVELOPER = ProjectRole.DEVELOPER.value, "Developer"
    OWNER = ProjectRole.OWNER.value, "Owner"
    SIDECAR_EXEC = SIDECAR_EXEC, "Exec into platform sidecars"


ROLE_ACCESS = (Access.VIEWER, Access.DEVELOPER, Access.OWNER)


class RequestState(models.TextChoices):
    PENDING = "pending", "Pending"
    APPROVED = "approved", "Approved"
    DENIED = "denied", "Denied"


class GrantEnd(models.TextChoices):
    EXPIRED = "expired", "Expired"
    REVOKED = "revoked", "Revoked"


class AccessRequest(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="access_requests")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_requests")
    access = models.CharField(max_length=16, choices=Access.choices)
    duration_seconds = models.PositiveIntegerField()
    reason = models.TextField()
    state = models.CharField(max_length=10, choices=RequestState.choices, default=RequestState.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="access_decisions"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["project", "state"], name="access_request_queue_idx")]

    def __str__(self) -> str:
        return f"{self.requested_by} asks {self.access} in {self.project} ({self.state})"


class AccessGrant(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="access_grants")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_grants")
    access = models.CharField(max_length=16, choices=Access.choices)
    reason = models.TextField()
    request = models.OneToOneField(
        AccessRequest, null=True, blank=True, on_delete=models.SET_NULL, related_name="grant"
    )
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="access_grants_given"
    )
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    warned_at = models.DateTimeField(null=True, blank=True, help_text="When access_expiring was sent.")
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text="When its end was processed (audited, clusters and open sockets told)."
    )
    end = models.CharField(max_length=10, choices=GrantEnd.choices, blank=True)
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["ends_at", "id"]
        indexes = [
            models.Index(fields=["user", "ends_at"], name="access_grant_user_idx"),
            models.Index(fields=["closed_at", "ends_at"], name="access_grant_open_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.access} in {self.project} until {self.ends_at:%Y-%m-%d %H:%M}"
