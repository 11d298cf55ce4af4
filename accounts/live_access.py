"""Tell a user's open websockets (shells, log streams) that their access changed, across worker processes.

Each debugging consumer joins the channel-layer group ``user_group(user.pk)``; a service that changes what a
user may reach (a membership or role, an archived project, a sign-out, a revoked token) calls
``access_changed`` and every socket of that user re-checks its authorization at once and closes if it no
longer holds. The message is sent after the transaction commits, so the re-check reads the new state.
It lives here, below ``projects``, so the services that change access can call it explicitly (no signals).

A message can reach a socket after a keystroke that was sent later, so the user's access *epoch* (a counter
in the shared cache) is bumped before the message goes out: a shell compares it before forwarding a keystroke
and re-checks first when it moved, so nothing typed after the change commits reaches the pod.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from channels.layers import get_channel_layer
from django.core.cache import cache
from django.db import transaction
from redis.exceptions import RedisError

from base.asyncbridge import call_async

log = logging.getLogger(__name__)

MESSAGE_TYPE = "access.changed"


def user_group(user_id: int) -> str:
    return f"access-user-{user_id}"


def epoch_key(user_id: int) -> str:
    return f"access-epoch:{user_id}"


def access_epoch(user_id: int) -> int:
    return int(cache.get(epoch_key(user_id)) or 0)


def access_changed(user_ids: Iterable[int], *, reason: str, project: str = "", session_key: str = "") -> None:
    """After commit, ask every open socket of ``user_ids`` to re-check; ``project`` narrows the re-check to
    sockets on that project, ``session_key`` marks the sockets of a session that ended (sign-out)."""
    ids = sorted({int(i) for i in user_ids if i is not None})
    if not ids:
        return
    message = {"type": MESSAGE_TYPE, "reason": reason, "project": project, "session": session_key}
    transaction.on_commit(lambda: _send(ids, message))


def _send(ids: list[int], message: dict[str, str]) -> None:
    """Runs after the change committed: a Redis outage must not turn it into an error (the sockets' periodic
    re-check, every DEBUG_RECHECK_SECONDS, still closes what lost its access)."""
    try:
        _bump_and_notify(ids, message)
    except (RedisError, OSError) as exc:
        log.warning("open sockets of users %s not told about %s (Redis unavailable): %s", ids, message["reason"], exc)


def _bump_and_notify(ids: list[int], message: dict[str, str]) -> None:
    for user_id in ids:
        cache.add(epoch_key(user_id), 0, timeout=None)
        cache.incr(epoch_key(user_id))
    layer = get_channel_layer()
    if layer is None:
        return

    async def notify() -> None:
        for user_id in ids:
            await layer.group_send(user_group(user_id), message)

    call_async(notify)
