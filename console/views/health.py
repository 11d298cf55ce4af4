from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from console.health import run_checks


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    results = run_checks()
    failed = [r.name for r in results if not r.ok]
    body = {
        "status": "ok" if not failed else "unavailable",
        "failed": failed,
        "checks": {r.name: {"ok": r.ok, "detail": r.detail, "ms": r.millis} for r in results},
    }
    return JsonResponse(body, status=200 if not failed else 503)
