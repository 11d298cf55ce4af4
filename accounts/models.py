"""Personal API tokens for the CLI and SDK. Only a SHA-256 digest of each secret is stored."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

TOKEN_PREFIX = "pct_"
READ, WRITE = "read", "write"  # a token's scope: read-only (safe methods, log streams) or everything its user may do
EXEC, LOGS = "exec", "logs"  # a robot token's further grants: shells, log streams (a personal token has them all)
ROBOT_GRANTS = (READ, WRITE, EXEC, LOGS)


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
    scope = models.CharField(max_length=8, choices=[(READ, "Read only"), (WRITE, "Read and write")], default=WRITE)
    # A robot account's token (``robots``): confined to one project's API and to its grants ("read,logs", ...).
    project = models.CharField(max_length=40, blank=True, default="")
    grants = models.CharField(max_length=40, blank=True, default="")

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
    def grant_set(self) -> frozenset[str]:
        """What this token may do: a robot's grants, else everything its scope allows."""
        if self.grants:
            return frozenset(self.grants.split(","))
        return frozenset(ROBOT_GRANTS) if self.scope == WRITE else frozenset((READ, LOGS))

    @property
    def is_active(self) -> bool:
        if self.revoked_at is not None:
            return False
        return self.expires_at is None or self.expires_at > timezone.now()


class OidcIdentity(models.Model):
    """An identity-provider account (issuer + ``sub``) linked to one portal user.

    Sign-in finds users only through this link: an email address never links an IdP account to an existing user
    (an IdP that lets anyone claim an address would hand out that account); an admin links explicitly.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="oidc_identities")
    issuer = models.CharField(max_length=255)
    subject = models.CharField(max_length=255)
    created_at = models.DateTimeField(default=timezone.now)
    last_sign_in_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["issuer", "subject"], name="one_user_per_oidc_identity")]

    def __str__(self) -> str:
        return f"{self.subject} @ {self.issuer}"
