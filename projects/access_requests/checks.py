"""The input of a request or a direct grant, checked field by field (every problem at once, each naming its field)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from projects.access_requests.models import Access

MAX_REASON = 1000


def _human(seconds: int) -> str:
    if seconds % 86400 == 0:
        return f"{seconds // 86400} d"
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} s"


def access_errors(access: Any, duration_seconds: Any, reason: Any) -> dict[str, str]:
    """``{field: sentence}`` for ``access``, ``duration_seconds`` and ``reason``; empty when all are usable."""
    errors: dict[str, str] = {}
    if not isinstance(access, str) or access not in Access.values:
        errors["access"] = f"{access!r} is not an access; use one of {', '.join(Access.values)}."
    longest, shortest = int(settings.ACCESS_GRANT_MAX_SECONDS), int(settings.ACCESS_GRANT_MIN_SECONDS)
    if isinstance(duration_seconds, bool) or not isinstance(duration_seconds, int):
        errors["duration_seconds"] = "Give the duration as a whole number of seconds."
    elif duration_seconds > longest:
        errors["duration_seconds"] = (
            f"{_human(duration_seconds)} is longer than the most a grant may last ({_human(longest)}); ask for at "
            f"most {longest} seconds."
        )
    elif duration_seconds < shortest:
        errors["duration_seconds"] = f"A grant lasts at least {_human(shortest)} ({shortest} seconds)."
    if not isinstance(reason, str) or not reason.strip():
        errors["reason"] = "Say why you need the access (the approvers read it)."
    elif len(reason) > MAX_REASON:
        errors["reason"] = f"Keep the reason under {MAX_REASON} characters (it has {len(reason)})."
    elif "\x00" in reason:
        errors["reason"] = "The reason may not hold a NUL character."
    return errors
