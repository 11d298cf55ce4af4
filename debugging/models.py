"""One row per open websocket (a shell or a log stream): the sessions page, and the per-user socket cap.

A row is written at connect (after authorization), touched by the socket's periodic re-check
(``last_seen``) and closed once with the bytes, the duration and how it ended. The cap counts rows that are
open and were seen recently, so a worker that died with sockets open does not hold a user's slots forever.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class SessionKind(models.TextChoices):
    SHELL = "shell", "Shell"
    LOGS = "logs", "Logs"


class DebugSession(models.Model):
    kind = models.CharField(max_length=8, choices=SessionKind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    username = models.CharField(max_length=150)
    project_name = models.CharField(max_length=63, db_index=True)
    cluster = models.CharField(max_length=63)
    namespace = models.CharField(max_length=63)
    pod = models.CharField(max_length=253)
    container = models.CharField(max_length=253)
    auth_method = models.CharField(max_length=16, default="session")
    started_at = models.DateTimeField(default=timezone.now, db_index=True)
    last_seen = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    bytes_in = models.BigIntegerField(default=0)
    bytes_out = models.BigIntegerField(default=0)
    end_reason = models.CharField(max_length=200, blank=True)
    close_code = models.IntegerField(null=True, blank=True)
    detail = models.CharField(max_length=300, blank=True, help_text="the shell picked, or the file followed")
    recorded = models.BooleanField(default=False)

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["user", "ended_at"], name="debugsession_open_idx")]

    def __str__(self) -> str:
        return f"{self.kind} {self.username} {self.namespace}/{self.pod}/{self.container}"

    @property
    def duration_s(self) -> float:
        end = self.ended_at or timezone.now()
        return max(0.0, (end - self.started_at).total_seconds())


class SessionRecording(models.Model):
    """A shell's transcript in asciicast v2 (output and resizes, not keystrokes), bounded by
    ``DEBUG_RECORDING_MAX_BYTES``; replayed by the project's owners and platform admins only."""

    session = models.OneToOneField(DebugSession, on_delete=models.CASCADE, primary_key=True, related_name="recording")
    cast = models.TextField()
    size = models.IntegerField(default=0)
    truncated = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"recording of session {self.session_id} ({self.size} bytes)"
