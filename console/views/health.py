"""Liveness and readiness.

/healthz (liveness) answers while the process can answer HTTP at all; it checks nothing else, so an outage of
something the portal talks to never gets its pods restarted. /readyz (readiness) answers 503 only when this process
cannot serve (the database: ``console.health``); a cluster, Redis or the broker that fails is *degraded*: 200 with
``"status": "degraded"``. Anyone learns the status; only platform admins (signed in or by API token) or a holder of
the configured probe token learn what failed and why (exception texts and cluster names are internals): ``failed``
(what makes it unready), ``degraded`` (the rest) and every check."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from rest_framework.exceptions import AuthenticationFailed, PermissionDenied

from accounts.authentication import ApiTokenAuthentication
from base.permissions import is_platform_admin
from console.health import cached_checks


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def may_see_details(request: HttpRequest, token: str | None = None) -> bool:
    """A platform admin (signed in, or by a personal API token), or a bearer of ``token`` (default
    ``READYZ_PROBE_TOKEN``; /metrics passes its own)."""
    token = settings.READYZ_PROBE_TOKEN if token is None else token
    given = request.headers.get("Authorization", "")
    if token and given.startswith("Bearer ") and hmac.compare_digest(given[7:].encode(), token.encode()):
        return True
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return is_platform_admin(user)
    return _api_token_admin(request)


def _api_token_admin(request: HttpRequest) -> bool:
    """The request carries a platform admin's valid API token (the API's own authentication, read-only tokens too)."""
    try:
        found = ApiTokenAuthentication().authenticate(request)
    except (AuthenticationFailed, PermissionDenied):
        return False  # another bearer, or a token unknown, expired or revoked: no different from none
    return found is not None and is_platform_admin(found[0])


@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    results = cached_checks()
    failed = [r.name for r in results if not r.ok and r.critical]
    degraded = [r.name for r in results if not r.ok and not r.critical]
    status = "unavailable" if failed else "degraded" if degraded else "ok"
    body: dict[str, object] = {"status": status}
    if may_see_details(request):
        body["failed"] = failed
        body["degraded"] = degraded
        body["checks"] = {
            r.name: {"ok": r.ok, "critical": r.critical, "detail": r.detail, "ms": r.millis} for r in results
        }
    return JsonResponse(body, status=503 if failed else 200)
