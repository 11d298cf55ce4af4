"""Tell a user's open websockets (shells, log streams) that their access changed, across worker processes.

A service that changes what a user may reach (a membership or role, an archived project, a sign-out, a revoked
token) calls ``access_changed``; after the transaction commits, the user's access *epoch* (a counter in the shared
cache) is incremented and every worker process's access hub (``debugging.accesshub``) is told: it raises the epochs
it keeps in memory, acknowledges, and makes each of the user's sockets re-check at once (closing what no longer
holds). With Redis the change is PUBLISHed and this waits for an acknowledgement from every hub that received it
(PUBLISH says how many), at most ``DEBUG_ACCESS_LEASE_SECONDS``: a hub that stayed silent that long no longer trusts
its memory (its lease ran out). So once this returns, no keystroke sent afterwards reaches a pod unchecked, while a
keystroke costs no Redis round trip. Without Redis (one process) the hubs of this process are called directly.
It lives here, below ``projects``, so the services that change access can call it explicitly (no signals).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from django.db import transaction
from redis import Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

MESSAGE_TYPE = "access.changed"
ACCESS_CHANNEL = "pinconsole:access"  # the Redis pub/sub channel the hubs subscribe to
# The hubs of this process when there is no Redis: each takes a change and answers False once its loop is gone.
_LOCAL_LISTENERS: list[Callable[[dict[str, Any]], bool]] = []


_CLIENTS: dict[str, Redis] = {}


def cache_redis_url() -> str:
    """The Redis the default cache names (its first server, which takes the writes): the epochs are kept there, and
    the hubs' channel is on it. Read from the setting, not from the cache backend's private attributes."""
    location = settings.CACHES["default"]["LOCATION"]
    servers = location.split(",") if isinstance(location, str) else list(location)
    return str(servers[0]).strip()


def _redis(url: str) -> Redis:
    """This process's client of ``url`` (a pool of its own; a Redis that stops answering fails a call in seconds)."""
    client = _CLIENTS.get(url)
    if client is None:
        client = _CLIENTS[url] = Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    return client


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


def add_local_listener(listener: Callable[[dict[str, Any]], bool]) -> None:
    _LOCAL_LISTENERS.append(listener)


def _bump_and_notify(ids: list[int], message: dict[str, str]) -> None:
    epochs: dict[str, int] = {}
    for user_id in ids:
        cache.add(epoch_key(user_id), 0, timeout=None)
        epochs[str(user_id)] = int(cache.incr(epoch_key(user_id)))
    payload: dict[str, Any] = {**message, "users": ids, "epochs": epochs}
    if isinstance(caches["default"], RedisCache):
        _publish_and_wait(_redis(cache_redis_url()), payload)
        return
    for listener in list(_LOCAL_LISTENERS):
        if not listener(payload):
            _LOCAL_LISTENERS.remove(listener)


def _publish_and_wait(client: Redis, payload: dict[str, Any]) -> None:
    """PUBLISH, then one acknowledgement per hub that received it, until the lease ran out for the silent ones."""
    reply = f"{ACCESS_CHANNEL}:ack:{uuid.uuid4().hex}"
    receivers = int(client.publish(ACCESS_CHANNEL, json.dumps({**payload, "reply": reply})))
    deadline = time.monotonic() + float(settings.DEBUG_ACCESS_LEASE_SECONDS)
    acknowledged = 0
    while acknowledged < receivers:
        left = deadline - time.monotonic()
        if left <= 0:
            log.warning(
                "%d of %d portal processes did not acknowledge %s in time; their leases have expired",
                receivers - acknowledged,
                receivers,
                payload["reason"],
            )
            break
        # Under the cache client's 2 s socket timeout: a longer lease is waited for in steps.
        if client.blpop([reply], timeout=min(left, 1.0)) is not None:
            acknowledged += 1
    client.delete(reply)
