"""Liveness and readiness.

/healthz (liveness) answers while the process can answer HTTP at all; it checks nothing else, so an outage of
something the portal talks to never gets its pods restarted. /readyz (readiness) answers 503 only when this process
cannot serve (the database: ``console.health``); a cluster, Redis or the broker that fails is *degraded*: 200 with
``"status": "degraded"``. Anyone learns the status; only platform admins or a holder of the configured probe token
learn what failed and why (exception texts and cluster names are internals): ``failed`` (what makes it unready),
``degraded`` (the rest) and every check."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from base.permissions import is_platform_admin
from console.health import cached_checks


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def may_see_details(request: HttpRequest, token: str | None = None) -> bool:
    """A platform admin, or a bearer of ``token`` (default ``READYZ_PROBE_TOKEN``; /metrics passes its own)."""
    token = settings.READYZ_PROBE_TOKEN if token is None else token
    given = request.headers.get("Authorization", "")
    if token and given.startswith("Bearer ") and hmac.compare_digest(given[7:].encode(), token.encode()):
        return True
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated and is_platform_admin(user))


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
