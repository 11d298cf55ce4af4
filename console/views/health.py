"""Liveness and readiness. /healthz is trivial; /readyz tells anyone whether the portal is ready and only platform
admins or a holder of the configured probe token what failed and why (exception texts and cluster names are
internals)."""

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
    failed = [r.name for r in results if not r.ok]
    body: dict[str, object] = {"status": "ok" if not failed else "unavailable"}
    if may_see_details(request):
        body["failed"] = failed
        body["checks"] = {r.name: {"ok": r.ok, "detail": r.detail, "ms": r.millis} for r in results}
    return JsonResponse(body, status=200 if not failed else 503)
