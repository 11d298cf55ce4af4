"""OIDC sign-in: users keyed by email, the groups claim mirrored into Django groups."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import transaction
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from base import audit

_MAX_GROUP_NAME = 150


def claim_groups(claims: dict[str, Any]) -> list[str]:
    raw = claims.get(settings.OIDC_GROUPS_CLAIM) or []
    if isinstance(raw, str):
        raw = [raw]
    return sorted({str(g)[:_MAX_GROUP_NAME] for g in raw if str(g).strip()})


class PortalOIDCBackend(OIDCAuthenticationBackend):
    def verify_claims(self, claims: dict[str, Any]) -> bool:
        return bool(claims.get("email")) and claims.get("email_verified", True) is not False

    def filter_users_by_claims(self, claims: dict[str, Any]) -> Any:
        email = claims.get("email", "")
        return self.UserModel.objects.filter(email__iexact=email) if email else self.UserModel.objects.none()

    def create_user(self, claims: dict[str, Any]) -> Any:
        email = claims["email"]
        user = self.UserModel.objects.create_user(username=email[:150], email=email)
        user.set_unusable_password()
        self._sync(user, claims)
        audit.record(
            "user.create",
            actor=user,
            target_kind="User",
            target_name=user.username,
            after={"groups": claim_groups(claims)},
            summary="First OIDC sign-in",
        )
        return user

    def update_user(self, user: Any, claims: dict[str, Any]) -> Any:
        self._sync(user, claims)
        return user

    @transaction.atomic
    def _sync(self, user: Any, claims: dict[str, Any]) -> None:
        names = claim_groups(claims)
        groups = [Group.objects.get_or_create(name=name)[0] for name in names]
        user.groups.set(groups)
        is_admin = settings.PLATFORM_ADMIN_GROUP in names
        user.first_name = str(claims.get("given_name") or claims.get("name") or "")[:150]
        user.last_name = str(claims.get("family_name") or "")[:150]
        user.is_staff = is_admin
        user.is_superuser = is_admin
        user.save()
