"""The one helper every mutation calls. Audit rows are written in the caller's transaction."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.serializers.json import DjangoJSONEncoder

from base.models import AuditEvent
from base.requestid import current_request_id

_MAX_SUMMARY = 500
_MAX_STATE_BYTES = 64 * 1024


def _jsonable(value: Any) -> Any:
    if value is None:
        return None
    text = json.dumps(value, cls=DjangoJSONEncoder, sort_keys=True, default=str)
    if len(text) > _MAX_STATE_BYTES:
        return {"truncated": True, "bytes": len(text)}
    return json.loads(text)


def record(
    action: str,
    *,
    actor: AbstractBaseUser | AnonymousUser | None,
    target_kind: str,
    target_name: str,
    project: str = "",
    cluster: str = "",
    before: Any = None,
    after: Any = None,
    summary: str = "",
    request_id: str | None = None,
) -> AuditEvent:
    """Write one audit row. `action` is dotted, e.g. "cluster.update", "shell.open"."""
    user = actor if actor is not None and getattr(actor, "is_authenticated", False) else None
    actor_name = user.get_username() if user is not None else "system"
    return AuditEvent.objects.create(
        actor=user,
        actor_name=actor_name,
        action=action,
        target_kind=target_kind,
        target_name=target_name,
        project_name=project,
        cluster=cluster,
        request_id=request_id or current_request_id(),
        before=_jsonable(before),
        after=_jsonable(after),
        summary=summary[:_MAX_SUMMARY],
    )


def changed_fields(before: dict[str, Any], after: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Reduce two snapshots to the keys that differ, so audit rows say what changed."""
    keys = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    return {k: before.get(k) for k in keys}, {k: after.get(k) for k in keys}
