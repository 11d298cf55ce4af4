"""Robot accounts: a project's named service accounts for CI. Each is a portal user of its own (so the audit names
it, "robot deploy-bot of payments", and the rate limits count it like a person) with one membership in its
project and one active API token confined to that project and to its grants (``accounts.ApiToken.project``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from projects.models import DNS_LABEL, Project


class Robot(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="robots")
    name = models.CharField(max_length=40, validators=[DNS_LABEL])
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="robot")
    grants = models.CharField(max_length=40, help_text="Comma-separated: read, write, exec, logs.")
    created_by = models.CharField(max_length=150)
    created_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="unique_robot_name_per_project")]

    def __str__(self) -> str:
        return username_of(self.name, self.project.name)

    @property
    def grant_list(self) -> list[str]:
        return self.grants.split(",")


def username_of(name: str, project: str) -> str:
    """The robot's portal username, which the audit shows as its actor."""
    return f"robot {name} of {project}"
