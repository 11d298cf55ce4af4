"""Tell a user's open websockets (shells, log streams) that their access changed, across worker processes.

Each debugging consumer joins the channel-layer group ``user_group(user.pk)``; a service that changes what a
user may reach (a membership or role, an archived project, a sign-out, a revoked token) calls
``access_changed`` and every socket of that user re-checks its authorization at once and closes if it no
longer holds. The message is sent after the transaction commits, so the re-check reads the new state.
It lives here, below ``projects``, so the services that change access can call it explicitly (no signals).
"""

from __future__ import annotations

from collections.abc import Iterable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

MESSAGE_TYPE = "access.changed"


def user_group(user_id: int) -> str:
    return f"access-user-{user_id}"


def access_changed(user_ids: Iterable[int], *, reason: str, project: str = "", session_key: str = "") -> None:
    """After commit, ask every open socket of ``user_ids`` to re-check; ``project`` narrows the re-check to
    sockets on that project, ``session_key`` marks the sockets of a session that ended (sign-out)."""
    ids = sorted({int(i) for i in user_ids if i is not None})
    if not ids:
        return
    message = {"type": MESSAGE_TYPE, "reason": reason, "project": project, "session": session_key}
    transaction.on_commit(lambda: _send(ids, message))


def _send(ids: list[int], message: dict[str, str]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for user_id in ids:
        async_to_sync(layer.group_send)(user_group(user_id), message)
