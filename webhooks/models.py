"""A project's webhooks, the events routed to each, and the log of what was sent to them."""

from __future__ import annotations

from django.db import models


class Format(models.TextChoices):
    GENERIC = "generic", "Generic JSON, signed"
    SLACK = "slack", "Slack-compatible"


class Webhook(models.Model):
    """``events`` are its routes: the notification events sent to it. ``failures`` counts consecutive failed
    attempts; at ``WEBHOOK_DISABLE_AFTER`` the hook is disabled and the project's owners told."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="webhooks")
    name = models.CharField(max_length=40)
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=100)
    format = models.CharField(max_length=10, choices=Format.choices, default=Format.GENERIC)
    enabled = models.BooleanField(default=True)
    events = models.JSONField(default=list, blank=True)
    failures = models.PositiveIntegerField(default=0)
    disabled_reason = models.CharField(max_length=300, blank=True)
    created_by = models.CharField(max_length=150)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="webhook_name_per_project")]

    def __str__(self) -> str:
        return f"webhook {self.name} of {self.project_id}"


class DeliveryState(models.TextChoices):
    PENDING = "pending", "Pending"
    DELIVERED = "delivered", "Delivered"
    FAILED = "failed", "Failed"


class Delivery(models.Model):
    """One event sent to one hook: once per (hook, key, occurrence), however often the event is reported."""

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40)
    key = models.CharField(max_length=200)
    occurrence = models.CharField(max_length=200, blank=True)
    body = models.TextField()
    state = models.CharField(max_length=10, choices=DeliveryState.choices, default=DeliveryState.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["webhook", "key", "occurrence"], name="webhook_delivery_once"),
        ]

    def __str__(self) -> str:
        return f"{self.event} to {self.webhook_id}"


class Attempt(models.Model):
    """One POST of a delivery: its HTTP status (None when no answer came), the error, how long it took."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveIntegerField()
    status_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    duration_ms = models.PositiveIntegerField()
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["delivery", "number"], name="webhook_attempt_once")]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.delivery_id}"

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300
