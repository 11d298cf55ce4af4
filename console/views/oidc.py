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
from django.urls import URLPattern


def _guarded(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.OIDC_ENABLED:  # read per request: tests and reloaded settings apply
            raise Http404("Single sign-on is not configured here.")
        return view(request, *args, **kwargs)

    return guarded


def oidc_enabled(included: tuple[Any, str | None, str | None]) -> tuple[Any, str | None, str | None]:
    """``include(...)`` of the OIDC URLs, rebuilt with each view answering 404 while OIDC is off (the library's own
    patterns are left as they are)."""
    urlconf, app_name, namespace = included
    guarded: list[URLPattern] = []
    for pattern in getattr(urlconf, "urlpatterns", urlconf):
        if not isinstance(pattern, URLPattern):
            raise TypeError("nested OIDC URL confs are not expected")
        guarded.append(URLPattern(pattern.pattern, _guarded(pattern.callback), pattern.default_args, pattern.name))
    return guarded, app_name, namespace
