"""Personal API tokens for the CLI/SDK: `Authorization: Bearer pct_...`."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed, NotFound, PermissionDenied
from rest_framework.permissions import SAFE_METHODS

from accounts.models import LOGS, READ, TOKEN_PREFIX, WRITE, ApiToken, hash_token
from base.permissions import in_admin_group, remember_platform_admin

_TOUCH_EVERY = timedelta(minutes=1)


class ApiTokenAuthentication(BaseAuthentication):
    keywords = (b"bearer", b"token")

    def authenticate(self, request: Any) -> tuple[Any, ApiToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in self.keywords:
            return None
        if len(parts) != 2:
            raise AuthenticationFailed("Malformed Authorization header: expected 'Bearer <token>'.")
        raw = parts[1].decode(errors="replace")
        if not raw.startswith(TOKEN_PREFIX):
            raise AuthenticationFailed("Unknown token format.")
        # One query: the token (its digest is unique: no ordering; expiry and revocation checked on the row read),
        # its user, and whether they are a platform admin (every API view asks; each query was ~10 % of a page).
        found = ApiToken.objects.select_related("user").filter(digest=hash_token(raw)).order_by()
        token = found.annotate(platform_admin=in_admin_group("user_id")).first()
        if token is None or not token.is_active or not token.user.is_active:
            raise AuthenticationFailed("Invalid, expired or revoked API token.")
        remember_platform_admin(token.user, token.platform_admin)
        if token.project:
            confine_robot(token, request)
        if token.scope == READ and getattr(request, "method", "GET") not in SAFE_METHODS:
            raise PermissionDenied("This API token is read-only (scope read): create a write token to change things.")
        token.user.api_token_scope = token.scope  # consumers refuse shells to read-only tokens (debugging.authz)
        token.user.api_token_grants = token.grant_set  # and shells/log streams to robots without exec/logs
        token.user.api_token_project = token.project
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at > _TOUCH_EVERY:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request: Any) -> str:
        return 'Bearer realm="pinconsole"'


def confine_robot(token: ApiToken, request: Any) -> None:
    """A robot account's token reaches its own project's API only (any other path is a 404, as another tenant's
    project is) and only what its grants name (403). A websocket handshake has no API path: the consumers check
    the project and the exec/logs grants themselves (``debugging.authz``)."""
    path = str(getattr(request, "path", "") or "")
    if not path.startswith("/api/") or path == "/api/v1/version/":  # the version: what ``pincompute login`` checks
        return
    if not path.startswith(f"/api/v1/projects/{token.project}/"):
        raise NotFound("Not found: a robot account's token reaches only its own project.")
    grants = token.grant_set
    method = getattr(request, "method", "GET")
    if method not in SAFE_METHODS and WRITE not in grants:
        raise PermissionDenied("This robot account has no write scope.")
    if method in SAFE_METHODS and READ not in grants and not ("/logs/" in path and LOGS in grants):
        raise PermissionDenied("This robot account has no read scope.")
    if "/logs/" in path and LOGS not in grants:
        raise PermissionDenied("This robot account has no logs scope.")
