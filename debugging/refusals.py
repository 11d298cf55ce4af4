"""An audit row for every refused websocket, rate-limited per user (or client address) and reason.

Probing another tenant's pods must be visible, and must not be able to flood the audit log: the first refusal
of a (who, reason) pair in a window of ``DEBUG_REFUSAL_AUDIT_SECONDS`` is written at once; the ones after it
in the same window are only counted (in the cache, shared by the workers when it is Redis; under the window's
own key) and that count is written with the next row of the pair (``after.suppressed``). The row names who, the
path, the close code and the message.
"""

from __future__ import annotations

import uuid
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


def _open_or_count(key: str, window: int) -> str | None:
    """Open a window for ``key`` (its new id) or count this refusal in the window open now (None).

    A window's count is kept under the window's own id: sockets refused at once (each on a thread of its own) all
    count (add-then-incr, both atomic), and none of them lands in the count that the row opening the window reads,
    which is the previous window's."""
    opened = uuid.uuid4().hex
    for _ in range(2):  # the open window may expire between the add and the get: then this refusal opens one
        if cache.add(f"{key}:open", opened, timeout=window):
            return opened
        current = cache.get(f"{key}:open")
        if current is not None:
            counter = f"{key}:count:{current}"
            cache.add(counter, 0, timeout=window * 10)
            try:
                cache.incr(counter)
            except ValueError:  # expired between the two calls
                cache.set(counter, 1, timeout=window * 10)
            return None
    return None


def record_refusal(scope: dict[str, Any], code: int, message: str, *, project: str = "", cluster: str = "") -> bool:
    """Audit one refusal unless its (who, code) pair was audited within the window; True when a row was written."""
    metrics.refusal(code)  # every refusal, audited or only counted
    actor, who = _who(scope)
    key = f"debug-refused:{who}:{code}"
    window = max(1, limits().refusal_audit_seconds)
    opened = _open_or_count(key, window)
    if opened is None:
        return False
    previous = cache.get(f"{key}:last")
    cache.set(f"{key}:last", opened, timeout=window * 10)
    suppressed = (cache.get(f"{key}:count:{previous}") or 0) if previous else 0
    if suppressed:
        cache.delete(f"{key}:count:{previous}")
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
