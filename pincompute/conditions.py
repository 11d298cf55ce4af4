"""Conditions as the Kubernetes API conventions keep them: a list keyed by ``type``, whose lastTransitionTime only
moves when the status changes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def condition_of(obj: Mapping[str, Any] | None, type_: str) -> dict[str, Any]:
    """A copy of the condition ``type_`` in an object's status ({} when it has none)."""
    for item in ((obj or {}).get("status") or {}).get("conditions") or []:
        if item.get("type") == type_:
            return dict(item)
    return {}


def set_condition(
    conditions: Sequence[Mapping[str, Any]],
    type: str,
    status: str,
    reason: str,
    message: str,
    observed_generation: int,
    now: datetime,
) -> list[dict[str, Any]]:
    """New list with ``type`` set; keeps lastTransitionTime when the status did not change."""
    result = [dict(c) for c in conditions]
    previous = next((c for c in result if c.get("type") == type), None)
    changed = previous is None or previous.get("status") != status
    condition = {
        "type": type,
        "status": status,
        "reason": reason,
        "message": message,
        "observedGeneration": observed_generation,
        "lastTransitionTime": rfc3339(now)
        if changed or previous is None
        else previous.get("lastTransitionTime", rfc3339(now)),
    }
    if previous is None:
        result.append(condition)
    else:
        result[result.index(previous)] = condition
    return result


def set_conditions(
    conditions: Sequence[Mapping[str, Any]], new: Iterable[Mapping[str, Any]], observed_generation: int, now: datetime
) -> list[dict[str, Any]]:
    """``set_condition`` for each of ``new`` (type, status, reason, message), in order."""
    result = [dict(c) for c in conditions]
    for c in new:
        result = set_condition(result, c["type"], c["status"], c["reason"], c["message"], observed_generation, now)
    return result
