from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from base.permissions import is_platform_admin


def portal(request: HttpRequest) -> dict[str, Any]:
    return {
        "is_platform_admin": is_platform_admin(getattr(request, "user", None)),
        "dev_login_enabled": settings.DEV_LOGIN_ENABLED,
        "oidc_enabled": settings.OIDC_ENABLED,
        "request_id": getattr(request, "request_id", ""),
    }
