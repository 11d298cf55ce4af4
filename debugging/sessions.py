"""The session rows of open sockets: opened under the per-user cap, touched by the re-check, ended once.

The cap counts a user's open rows seen within ``STALE_AFTER`` re-check periods, across every worker (the
database is shared); rows of a worker that died are closed as ``lost`` when they go stale.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from debugging.models import DebugSession
from debugging.policy import TooManySessions, limits

STALE_AFTER = 3  # re-check periods without a touch


def _stale_before() -> Any:
    return timezone.now() - timedelta(seconds=STALE_AFTER * max(1, limits().recheck_seconds))


def open_session(
    *,
    user: Any,
    kind: str,
    project: str,
    cluster: str,
    namespace: str,
    pod: str,
    container: str,
    auth_method: str,
    detail: str = "",
    recorded: bool = False,
) -> DebugSession:
    """A new open row; ``TooManySessions`` (close 4429) when the user already holds the cap."""
    cap = limits().sockets_per_user
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one admission at a time per user
        mine = DebugSession.objects.filter(user=user, ended_at__isnull=True)
        mine.filter(last_seen__lt=_stale_before()).update(ended_at=timezone.now(), end_reason="lost (worker gone)")
        held = mine.count()
        if held >= cap:
            raise TooManySessions(
                f"You have {held} open shells and log streams, the most allowed (DEBUG_SOCKETS_PER_USER={cap}); "
                "close one first."
            )
        return DebugSession.objects.create(
            kind=kind,
            user=user,
            username=user.get_username(),
            project_name=project,
            cluster=cluster,
            namespace=namespace,
            pod=pod,
            container=container,
            auth_method=auth_method,
            detail=detail[:300],
            recorded=recorded,
        )


def touch(session_id: int, *, bytes_in: int, bytes_out: int) -> None:
    DebugSession.objects.filter(pk=session_id, ended_at__isnull=True).update(
        last_seen=timezone.now(), bytes_in=bytes_in, bytes_out=bytes_out
    )


def end_session(session_id: int, *, bytes_in: int, bytes_out: int, reason: str, code: int | None) -> None:
    DebugSession.objects.filter(pk=session_id, ended_at__isnull=True).update(
        ended_at=timezone.now(), bytes_in=bytes_in, bytes_out=bytes_out, end_reason=reason[:200], close_code=code
    )
