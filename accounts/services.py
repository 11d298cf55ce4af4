"""Named write actions on sessions and personal API tokens. Pages, API views, the admin and commands call these."""

from __future__ import annotations

import contextlib
import math
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from limits import RateLimitItemPerSecond

from accounts.live_access import access_changed
from accounts.models import READ, WRITE, ApiToken
from base import audit
from base.errors import Conflict, Forbidden, Invalid, NotFound
from base.text import hidden_character
from base.throttling import CACHE_DOWN, limiter

MAX_TOKENS_PER_USER = 20
SCOPES = (READ, WRITE)  # the model's order: one enum in the OpenAPI schema


def max_token_days() -> int:
    return int(settings.API_TOKEN_MAX_DAYS)


def default_token_days() -> int:
    return min(int(settings.API_TOKEN_DEFAULT_DAYS), max_token_days())


@transaction.atomic
def create_api_token(
    *, user: Any, name: str, days: int | None, scope: str = WRITE, via_token: ApiToken | None = None
) -> tuple[ApiToken, str]:
    """Create a token and return it with its one-time secret. Every token expires (``days``, else the default, at
    most the maximum). A request authenticated by a token cannot create one: a leaked token must not be able to
    mint a successor that outlives its revocation."""
    if via_token is not None:
        raise Forbidden("A token cannot create tokens: sign in to the portal to create one.")
    name = (name or "").strip()
    if not name or len(name) > 80:
        raise Invalid.on("name", "Give the token a name of 1 to 80 characters.")
    hidden = hidden_character(name)
    if hidden:
        raise Invalid.on("name", hidden)
    days = default_token_days() if days is None else days
    if not 1 <= days <= max_token_days():
        raise Invalid.on("days", f"Expiry must be between 1 and {max_token_days()} days.")
    if scope not in SCOPES:
        raise Invalid.on("scope", f"Scope must be one of {', '.join(SCOPES)}.")
    if ApiToken.objects.filter(user=user, name=name).exists():
        raise Conflict.on("name", f"You already have a token named {name!r}.")
    if ApiToken.objects.active().filter(user=user).count() >= MAX_TOKENS_PER_USER:
        raise Conflict.on("name", f"You have {MAX_TOKENS_PER_USER} active tokens; revoke one first.")
    raw, key_id, digest = ApiToken.generate()
    expires = timezone.now() + timedelta(days=days)
    token = ApiToken.objects.create(user=user, name=name, key_id=key_id, digest=digest, expires_at=expires, scope=scope)
    audit.record(
        "token.create",
        actor=user,
        target_kind="ApiToken",
        target_name=f"{name} ({key_id})",
        after={"expires_at": expires, "scope": scope},
    )
    return token, raw


@transaction.atomic
def revoke_api_token(*, user: Any, token_id: int, actor: Any = None) -> ApiToken:
    """Revoke ``user``'s token; ``actor`` is who does it when not the owner (a platform admin)."""
    token = ApiToken.objects.select_for_update().filter(pk=token_id, user=user).first()
    if token is None:
        raise NotFound("No such token.")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        audit.record(
            "token.revoke",
            actor=actor or user,
            target_kind="ApiToken",
            target_name=f"{token.name} ({token.key_id})",
            summary=f"Token of {user.get_username()}",
        )
        access_changed([user.pk], reason="API token revoked")
    return token


def record_sign_in(user: Any, *, how: str) -> None:
    """Audit a sign-in (the session itself is Django's)."""
    audit.record("user.login", actor=user, target_kind="User", target_name=user.get_username(), summary=how)


def record_sign_out(user: Any) -> None:
    audit.record("user.logout", actor=user, target_kind="User", target_name=user.get_username())


# Password sign-in (the dev command's accounts): failed guesses per name from one address, and per address. A limit
# on the name alone would let anyone lock its owner out; one on the address alone is the spray guard.
SIGN_IN_FAILURES_PER_NAME = 10
SIGN_IN_FAILURES_PER_ADDRESS = 50
SIGN_IN_WINDOW_SECONDS = 300


def _sign_in_limits(username: str, address: str) -> list[tuple[Any, tuple[str, ...]]]:
    name = username.strip().lower()[:150]
    return [
        (RateLimitItemPerSecond(SIGN_IN_FAILURES_PER_NAME, SIGN_IN_WINDOW_SECONDS), ("sign-in", name, address)),
        (RateLimitItemPerSecond(SIGN_IN_FAILURES_PER_ADDRESS, SIGN_IN_WINDOW_SECONDS), ("sign-in-address", address)),
    ]


def sign_in_wait(username: str, address: str) -> int:
    """Seconds until another password may be tried for ``username`` from ``address``; 0 when it may now. Counts
    live where the API's rate limits do (Redis, or the process); with Redis down sign-in is not held back."""
    wait = 0
    try:
        for item, keys in _sign_in_limits(username, address):
            if not limiter().test(item, *keys):
                reset_at = limiter().get_window_stats(item, *keys).reset_time
                wait = max(wait, max(1, math.ceil(reset_at - time.time())))
    except CACHE_DOWN:
        return 0
    return wait


def record_failed_sign_in(username: str, address: str) -> None:
    with contextlib.suppress(*CACHE_DOWN):
        for item, keys in _sign_in_limits(username, address):
            limiter().hit(item, *keys)


def throttled_message(wait: int) -> str:
    return f"Too many failed sign-ins from here. Try again in {wait} seconds."
