"""An audit row for every refused websocket, rate-limited per user (or client address) and reason.

Probing another tenant's pods must be visible, and must not be able to flood the audit log: the first refusal
of a (who, reason) pair in a window of ``DEBUG_REFUSAL_AUDIT_SECONDS`` is written at once; the ones after it
in the same window are only counted (in the cache, shared by the workers when it is Redis) and that count is
written with the next row of the pair (``after.suppressed``). The row names who, the path, the close code
and the message.
"""

from __future__ import annotations

from typing import Any

from django.core.cache import cache

from base import audit, metrics
from debugging.policy import limits

ACTION = "debug.refused"


def _who(scope: dict[str, Any]) -> tuple[Any, str]:
    user = scope.get("user")
    if getattr(user, "is_authenticated", False):
        return user, f"user:{user.pk}"
    client = scope.get("client") or ("?", 0)
    return None, f"addr:{client[0]}"


def record_refusal(scope: dict[str, Any], code: int, message: str, *, project: str = "", cluster: str = "") -> bool:
    """Audit one refusal unless its (who, code) pair was audited within the window; True when a row was written."""
    metrics.refusal(code)  # every refusal, audited or only counted
    actor, who = _who(scope)
    key = f"debug-refused:{who}:{code}"
    window = max(1, limits().refusal_audit_seconds)
    if not cache.add(f"{key}:open", 1, timeout=window):
        # add-then-incr: both atomic, so sockets refused at once (each on its own thread) all count; an
        # incr-or-set lost every count but one when two found the counter missing together
        cache.add(f"{key}:count", 0, timeout=window * 10)
        try:
            cache.incr(f"{key}:count")
        except ValueError:  # expired between the two calls
            cache.set(f"{key}:count", 1, timeout=window * 10)
        return False
    suppressed = cache.get(f"{key}:count") or 0
    if suppressed:
        cache.delete(f"{key}:count")
    path = str(scope.get("path", "")).replace("\x00", "\\x00")[:200]  # a NUL: no text column takes it
    audit.record(
        ACTION,
        actor=actor,
        target_kind="websocket",
        target_name=path,
        project=project,
        cluster=cluster,
        after={"code": code, "reason": message, "suppressed": suppressed, "client": who if actor is None else ""},
        summary=f"refused {code}: {message}"[:500],
    )
    return True
