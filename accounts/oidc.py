"""OIDC sign-in: users keyed by the issuer and ``sub`` claim, the groups claim mirrored into Django groups.

An email address is only a label here: it never finds or links an account (see ``accounts.identity``), and it is
stored only when the provider says it is verified (``email_verified`` the boolean true, not a string).
"""

from __future__ import annotations

import logging
from typing import Any

import requests
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import Group
from django.core.exceptions import SuspiciousOperation
from django.db import transaction
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from accounts import identity
from accounts.live_access import access_changed
from base import audit

LOG = logging.getLogger(__name__)
_MAX_GROUP_NAME = 150


def claim_groups(claims: dict[str, Any]) -> list[str]:
    raw = claims.get(settings.OIDC_GROUPS_CLAIM) or []
    if isinstance(raw, str):
        raw = [raw]
    return sorted({str(g)[:_MAX_GROUP_NAME] for g in raw if str(g).strip()})


def verified_email(claims: dict[str, Any]) -> str:
    """The email claim when the provider vouches for it (``email_verified is True``), else ""."""
    email = claims.get("email")
    if isinstance(email, str) and email.strip() and claims.get("email_verified") is True:
        return email.strip()[:254]
    return ""


class PortalOIDCBackend(OIDCAuthenticationBackend):
    def authenticate(self, request: Any, **kwargs: Any) -> Any:
        """A provider that refuses the code exchange (a wrong client secret, a code used twice) or does not answer is
        a failed sign-in with a message on the sign-in page, never a 500."""
        try:
            return super().authenticate(request, **kwargs)
        except requests.RequestException as exc:
            status = getattr(exc.response, "status_code", None)
            why = f"answered {status}" if status else f"did not answer ({type(exc).__name__})"
            LOG.warning("OIDC sign-in failed: the identity provider %s", why)
            if request is not None:
                messages.error(request, f"Sign-in failed: the identity provider {why}. Try again, or ask an admin.")
            return None

    def get_userinfo(self, access_token: str, id_token: str, payload: dict[str, Any]) -> dict[str, Any]:
        """The userinfo claims with ``iss`` and ``sub`` taken from the verified ID token.

        OIDC Core 5.3.2: the userinfo ``sub`` must equal the ID token's, or the answer is not about this user."""
        info = dict(super().get_userinfo(access_token, id_token, payload))
        sub = payload.get("sub")
        if info.get("sub") not in (None, sub):
            raise SuspiciousOperation("The userinfo subject is not the ID token's subject.")
        info["sub"], info["iss"] = sub, payload.get("iss")
        return info

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        return identity.valid_key(claims.get("iss"), claims.get("sub"))

    def filter_users_by_claims(self, claims: dict[str, Any]) -> Any:
        return identity.users_of(str(claims["iss"]), str(claims["sub"]))

    def create_user(self, claims: dict[str, Any]) -> Any:
        with transaction.atomic():
            user = identity.create_user_for(
                str(claims["iss"]), str(claims["sub"]), email=verified_email(claims), hint=_username_hint(claims)
            )
            self._sync(user, claims, created=True)
        return user

    def update_user(self, user: Any, claims: dict[str, Any]) -> Any:
        with transaction.atomic():
            identity.touch(str(claims["iss"]), str(claims["sub"]))
            self._sync(user, claims, created=False)
        return user

    def _sync(self, user: Any, claims: dict[str, Any], *, created: bool) -> None:
        names = claim_groups(claims)
        before = sorted(user.groups.values_list("name", flat=True)) if not created else []
        user.groups.set([Group.objects.get_or_create(name=name)[0] for name in names])
        user.first_name = str(claims.get("given_name") or claims.get("name") or "")[:150]
        user.last_name = str(claims.get("family_name") or "")[:150]
        email = verified_email(claims)
        if email:
            user.email = email
        user.is_staff = False  # the portal's admin role comes from the group (base.permissions), not Django flags
        user.save()
        if hasattr(user, "_is_platform_admin"):
            del user._is_platform_admin
        if created:
            audit.record(
                "user.create",
                actor=user,
                target_kind="User",
                target_name=user.get_username(),
                after={"groups": names, "issuer": claims["iss"]},
                summary="First OIDC sign-in",
            )
        elif before != names:
            access_changed([user.pk], reason="groups changed at the identity provider")  # group memberships
            audit.record(
                "user.groups",
                actor=user,
                target_kind="User",
                target_name=user.get_username(),
                before={"groups": before},
                after={"groups": names},
                summary="Groups changed at the identity provider (mirrored at sign-in)",
            )


def _username_hint(claims: dict[str, Any]) -> str:
    email = verified_email(claims)
    if email:
        return email
    preferred = claims.get("preferred_username")
    return preferred if isinstance(preferred, str) and preferred.strip() else ""
