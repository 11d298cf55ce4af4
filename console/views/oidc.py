"""The OIDC routes answer only when OIDC is configured.

Without an issuer (``OIDC_RP_CLIENT_ID`` unset: the embedded default's password sign-in) mozilla-django-oidc's
``/oidc/authenticate/`` redirected to an empty authorization endpoint, a relative URL back to itself, forever, and
stored one more state in an anonymous session at every hop: anyone could make session rows without signing in.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver


def _guarded(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.OIDC_ENABLED:  # read per request: tests and reloaded settings apply
            raise Http404("Single sign-on is not configured here.")
        return view(request, *args, **kwargs)

    return guarded


def oidc_enabled(included: tuple[Any, str | None, str | None]) -> tuple[Any, str | None, str | None]:
    """``include(...)`` of the OIDC URLs with each view answering 404 while OIDC is off."""
    urlconf, app_name, namespace = included
    patterns = getattr(urlconf, "urlpatterns", urlconf)
    for pattern in patterns:
        if isinstance(pattern, URLPattern):
            pattern.callback = _guarded(pattern.callback)
        elif isinstance(pattern, URLResolver):
            raise TypeError("nested OIDC URL confs are not expected")
    return urlconf, app_name, namespace
