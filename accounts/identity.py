"""Identity-provider accounts and the portal users they sign in as.

A user is found by (issuer, subject) only. A new identity gets a new user whose username never collides with an
existing one (``dev@example.com``, then ``dev@example.com-2``...), so an IdP account that merely shares an email
address or a preferred username with a local account gets nothing of it. ``link`` is the explicit admin action that
attaches an identity to an existing user (``manage.py link_identity``), audited.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import OidcIdentity
from base import audit
from base.errors import Conflict, Invalid, NotFound

MAX_KEY = 255
_USERNAME_MAX = 150


def valid_key(issuer: object, subject: object) -> bool:
    """Both claims present, strings, and short enough to store."""
    return all(isinstance(v, str) and v.strip() and len(v) <= MAX_KEY for v in (issuer, subject))


def users_of(issuer: str, subject: str) -> QuerySet[Any]:
    return get_user_model().objects.filter(oidc_identities__issuer=issuer, oidc_identities__subject=subject)


def touch(issuer: str, subject: str) -> None:
    OidcIdentity.objects.filter(issuer=issuer, subject=subject).update(last_sign_in_at=timezone.now())


def free_username(hint: str) -> str:
    """``hint`` (or "user") when no account has it, else the first free ``hint-N``."""
    users = get_user_model().objects
    base = (hint.strip() or "user")[: _USERNAME_MAX - 6]
    candidate, n = base, 2
    while users.filter(username__iexact=candidate).exists():
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def create_user_for(issuer: str, subject: str, *, email: str, hint: str) -> Any:
    """A new portal user for a first sign-in, linked to its identity (call inside a transaction)."""
    user = get_user_model().objects.create_user(username=free_username(hint), email=email)
    user.set_unusable_password()
    user.save(update_fields=["password"])
    OidcIdentity.objects.create(user=user, issuer=issuer, subject=subject, last_sign_in_at=timezone.now())
    return user


@transaction.atomic
def link(*, username: str, issuer: str, subject: str, actor: Any = None) -> OidcIdentity:
    """Attach an IdP identity to an existing user: the one way an identity reaches an account it did not create."""
    if not valid_key(issuer, subject):
        raise Invalid.on("subject", f"Issuer and subject must be 1 to {MAX_KEY} characters.")
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise NotFound(f"No user {username!r}.")
    existing = OidcIdentity.objects.select_for_update().filter(issuer=issuer, subject=subject).first()
    if existing is not None and existing.user_id != user.pk:
        raise Conflict(f"That identity signs in as {existing.user.get_username()!r}; unlink it first.")
    ident = existing or OidcIdentity.objects.create(user=user, issuer=issuer, subject=subject)
    audit.record(
        "user.identity.link",
        actor=actor,
        target_kind="User",
        target_name=user.get_username(),
        after={"issuer": issuer, "subject": subject},
        summary="Identity-provider account linked by an admin",
    )
    return ident


@transaction.atomic
def unlink(*, issuer: str, subject: str, actor: Any = None) -> None:
    ident = OidcIdentity.objects.select_related("user").filter(issuer=issuer, subject=subject).first()
    if ident is None:
        raise NotFound("No such identity.")
    ident.delete()
    audit.record(
        "user.identity.unlink",
        actor=actor,
        target_kind="User",
        target_name=ident.user.get_username(),
        before={"issuer": issuer, "subject": subject},
    )
