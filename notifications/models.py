"""A notification is one row per recipient and event occurrence; a preference row per user says what reaches them."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Event(models.TextChoices):
    """The closed list of events; each is made in the one place that decides it (``services`` lists where)."""

    QUOTA_REQUESTED = "quota.requested", "Quota request made"
    QUOTA_DECIDED = "quota.decided", "Quota request decided"
    PROVISIONING_FAILED = "provisioning.failed", "Provisioning on a cluster failed"
    WORKLOAD_PREEMPTED = "workload.preempted", "Workload preempted"
    ACCESS_REQUESTED = "access.requested", "Access request made"
    ACCESS_DECIDED = "access.decided", "Access request decided (or access granted)"
    ACCESS_EXPIRING = "access.expiring", "Time-limited access about to end"
    ACCESS_EXPIRED = "access.expired", "Time-limited access ended"
    SHELL_OPENED = "shell.opened", "Shell opened in a project whose policy asks for it"
    # --- issue 31 (hooks): webhooks and the workload and tier events; kept together for the merge ---
    WEBHOOK_DISABLED = "webhook.disabled", "A project webhook disabled after failing"
    TIER_USAGE = "tier.usage", "A tier's usage crossed 80% or 100% of its grant"
    WORKLOAD_WAITING = "workload.waiting", "Workload waiting for admission too long"
    WORKLOAD_DEGRADED = "workload.degraded", "Workload degraded"
    WORKLOAD_FAILED = "workload.failed", "Workload failed"
    WORKLOAD_CRASHLOOP = "workload.crashloop", "Workload's pods crash-looping"
    # --- end of issue 31 (hooks) ---


class Severity(models.TextChoices):
    INFO = "info", "Info"
    WARNING = "warning", "Warning"
    ERROR = "error", "Error"


class NotificationQuerySet(models.QuerySet["Notification"]):
    def unread(self) -> NotificationQuerySet:
        return self.filter(read_at__isnull=True)


class Notification(models.Model):
    """``key`` names what the notification is about (a request, a workload's state): one row per recipient and key.
    ``occurrence`` names this instance of it; the same occurrence again changes nothing, a new one folds into the
    row (``count`` + 1, unread again)."""

    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    project = models.ForeignKey("projects.Project", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    event = models.CharField(max_length=40, choices=Event.choices)
    severity = models.CharField(max_length=10, choices=Severity.choices, default=Severity.INFO)
    text = models.CharField(max_length=500)
    link = models.CharField(max_length=500, blank=True)
    key = models.CharField(max_length=200)
    occurrence = models.CharField(max_length=200, blank=True)
    count = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    read_at = models.DateTimeField(null=True, blank=True)
    emailed_at = models.DateTimeField(null=True, blank=True)  # this occurrence was mailed (at once or in a digest)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["recipient", "key"], name="notification_once_per_key")]
        indexes = [models.Index(fields=["recipient", "read_at"], name="notification_unread")]

    def __str__(self) -> str:
        return f"{self.event} for {self.recipient_id}: {self.text}"


class Preference(models.Model):
    """What reaches a user: every event unless muted; in the app and/or by email; email at once or as a daily
    digest. A user without a row has the defaults (everything, in the app and by email, at once)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    muted = models.JSONField(default=list, blank=True)
    in_app = models.BooleanField(default=True)
    email = models.BooleanField(default=True)
    digest = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"notification preferences of {self.user_id}"
