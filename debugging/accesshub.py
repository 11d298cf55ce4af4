"""One access hub per event loop (an ASGI worker's): a keystroke checks the user's access epoch in memory, and a
revocation still wins over every keystroke sent after it commits.

The revoker (``accounts.live_access``) increments the user's epoch in Redis, PUBLISHes the change on
``ACCESS_CHANNEL`` and waits until every hub that received it (PUBLISH's count) has acknowledged, at most
``DEBUG_ACCESS_LEASE_SECONDS``. A hub, on such a message, raises the epochs it knows, acknowledges, then tells its
sockets of those users (``access_changed``: a re-check now). So once the revoker returns, every keystroke a hub
forwards afterwards compares against the new epoch and re-checks first.

The lease covers a hub that is slow or cut off: it PINGs over its subscriber connection every lease/4, and a pong
for a ping sent at ``t`` makes its memory trustworthy until ``t + lease``. Redis answers a subscriber's commands
and delivers publishes in one order, so a hub that has read that pong has read (and applied) every change published
before the ping. A hub whose lease ran out, or that lost its connection (its memory is then dropped), reads the
epoch from Redis for each keystroke, as every socket did before; the revoker waits at most one lease for silent hubs.

Without Redis (the embedded default: one process, Django's local-memory cache) the epoch is read from that cache,
in memory already, and changes reach the hubs of this process directly (``live_access.add_local_listener``).

One subscriber connection and a dict per process replace a channel-layer channel per socket (channels_redis
keeps three tasks per consumer waiting on it) and a Redis GET per keystroke.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import weakref
from collections import defaultdict
from typing import Any, Protocol

import redis.asyncio as aioredis
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

from accounts.live_access import ACCESS_CHANNEL, access_epoch, add_local_listener, cache_redis_url, epoch_key

log = logging.getLogger(__name__)
RECONNECT_SECONDS = (0.2, 5.0)  # first and longest wait before a new subscriber connection


class Listener(Protocol):
    async def access_changed(self, message: dict[str, Any]) -> None: ...


def lease_seconds() -> float:
    return float(settings.DEBUG_ACCESS_LEASE_SECONDS)


class AccessHub:
    """The user epochs a process may trust, and its open sockets by user."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.sockets: dict[int, set[Listener]] = defaultdict(set)  # each socket leaves when it ends (its finally)
        self.epochs: dict[int, int] = {}
        self.fresh_until = 0.0
        self.generation = 0  # bumped whenever the subscription is (re)made or lost: memory from before is void
        self.tasks: set[asyncio.Task[Any]] = set()
        self.runner: asyncio.Task[None] | None = None
        backend = caches["default"]
        self.redis_backend: RedisCache | None = backend if isinstance(backend, RedisCache) else None
        self.client: aioredis.Redis | None = None
        if self.redis_backend is None:
            add_local_listener(self._deliver_threadsafe)

    # -- sockets ---------------------------------------------------------------------------------------------
    def join(self, user_id: int, socket: Listener) -> None:
        self.sockets[user_id].add(socket)
        if self.redis_backend is not None and self.runner is None:
            self.runner = self.loop.create_task(self._run())

    def leave(self, user_id: int, socket: Listener) -> None:
        group = self.sockets.get(user_id)
        if group is None:
            return
        group.discard(socket)
        if not group:
            del self.sockets[user_id]
            self.epochs.pop(user_id, None)

    # -- epochs ----------------------------------------------------------------------------------------------
    def known_epoch(self, user_id: int) -> int | None:
        """The epoch from memory when it can be trusted (no I/O), else None: then ``epoch`` reads Redis."""
        if self.redis_backend is None:
            return access_epoch(user_id)
        if time.monotonic() >= self.fresh_until:
            return None
        return self.epochs.get(user_id)

    async def epoch(self, user_id: int) -> int:
        known = self.known_epoch(user_id)
        if known is not None:
            return known
        assert self.redis_backend is not None
        generation, fresh = self.generation, time.monotonic() < self.fresh_until
        value = int(await self._redis().get(self.redis_backend.make_key(epoch_key(user_id))) or 0)
        # Kept only when the subscription was live and unchanged throughout the read: any change published after
        # the GET reached this hub, so max() of the two is the newest.
        if fresh and generation == self.generation and user_id in self.sockets:
            self.epochs[user_id] = max(value, self.epochs.get(user_id, 0))
        return value

    def _redis(self) -> aioredis.Redis:
        if self.client is None:
            self.client = aioredis.Redis.from_url(cache_redis_url(), socket_connect_timeout=2, socket_timeout=2)
        return self.client

    # -- changes ---------------------------------------------------------------------------------------------
    def _deliver_threadsafe(self, payload: dict[str, Any]) -> bool:
        """From ``live_access`` in this process (no Redis); False once this hub's loop is gone."""
        if self.loop.is_closed():
            return False
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self.apply, payload)
        return True

    def apply(self, payload: dict[str, Any]) -> None:
        """Raise the epochs of the users named, then ask each of their sockets here to re-check."""
        epochs = {int(k): int(v) for k, v in (payload.get("epochs") or {}).items()}
        message = {k: payload.get(k, "") for k in ("type", "reason", "project", "session")}
        for user_id in payload.get("users") or []:
            user_id = int(user_id)
            sockets = list(self.sockets.get(user_id, ()))
            if not sockets:
                continue
            # Kept for every user with a socket here, not only those already known: a GET of the epoch still in
            # flight may return the value from before this change, and ``epoch`` keeps the higher of the two.
            known = self.epochs.get(user_id, 0)
            self.epochs[user_id] = max(known, epochs.get(user_id, known + 1))
            for socket in sockets:
                self._spawn(socket.access_changed(message))

    def _spawn(self, work: Any) -> None:
        task = self.loop.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _void(self) -> None:
        self.fresh_until, self.generation = 0.0, self.generation + 1
        self.epochs.clear()

    async def _run(self) -> None:
        """Keep one subscription (and its lease) while this loop has sockets; reconnect with a growing wait."""
        wait = RECONNECT_SECONDS[0]
        while self.sockets:
            try:
                await self._subscribed()
                wait = RECONNECT_SECONDS[0]
            except (RedisError, OSError) as exc:
                log.warning(
                    "access hub: Redis subscription lost (%s: %s); epochs read from Redis", type(exc).__name__, exc
                )
            finally:
                self._void()
            await asyncio.sleep(wait)
            wait = min(wait * 2, RECONNECT_SECONDS[1])
        self.runner = None

    async def _subscribed(self) -> None:
        pubsub = self._redis().pubsub()
        pinger: asyncio.Task[None] | None = None
        subscribed = asyncio.Event()  # cleared when this subscription ends: the pinger's own stop
        try:
            await pubsub.subscribe(ACCESS_CHANNEL)
            pubsub.connection.register_connect_callback(self._on_reconnect)  # type: ignore[union-attr]
            self.generation += 1
            subscribed.set()
            pinger = self.loop.create_task(self._ping(pubsub, subscribed))
            while self.sockets:
                message = await pubsub.get_message(timeout=lease_seconds())
                if message is None:
                    continue
                if message["type"] == "pong":
                    self.fresh_until = max(self.fresh_until, float(message["data"] or 0) + lease_seconds())
                elif message["type"] == "message":
                    await self._on_message(message["data"])
        finally:
            subscribed.clear()
            if pinger is not None:
                pinger.cancel()
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()

    def _on_reconnect(self, _connection: Any) -> None:
        self._void()  # redis-py reconnected under us: changes published meanwhile were missed

    async def _ping(self, pubsub: Any, subscribed: asyncio.Event) -> None:
        """Stops quietly when the connection fails: the reader sees the same failure and starts over, and without
        pongs the lease runs out meanwhile. Stops when the subscription ends, not only when cancelled: redis-py can
        swallow a cancellation that lands inside a command (redis/redis-py#2028; 11 in 400 cancellations during a
        ping here), and the pinger then pinged on for good, on a connection the closed pubsub reopened."""
        with contextlib.suppress(RedisError, OSError):
            while subscribed.is_set():
                await pubsub.ping(repr(time.monotonic()))
                await asyncio.sleep(lease_seconds() / 4)

    async def _on_message(self, data: bytes) -> None:
        payload: Any = None
        try:
            payload = json.loads(data)
            self.apply(payload)
        except (ValueError, TypeError, AttributeError) as exc:
            # A change this hub cannot read (another release's format, a stray publisher): whose access moved is
            # unknown, so memory is void and keystrokes read Redis until the next pong; the subscription stays.
            log.warning(
                "access hub: unreadable change on %s (%s: %s); epochs read from Redis",
                ACCESS_CHANNEL,
                type(exc).__name__,
                exc,
            )
            self._void()
        reply = payload.get("reply") if isinstance(payload, dict) else None
        if isinstance(reply, str) and reply:  # read from Redis from now on, or applied: acknowledged either way
            async with self._redis().pipeline(transaction=False) as pipe:
                await pipe.rpush(reply, 1).expire(reply, 30).execute()


_HUBS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AccessHub] = weakref.WeakKeyDictionary()


def access_hub() -> AccessHub:
    """The running event loop's hub."""
    loop = asyncio.get_running_loop()
    hub = _HUBS.get(loop)
    if hub is None or (hub.redis_backend is None) == isinstance(caches["default"], RedisCache):  # settings changed
        hub = _HUBS[loop] = AccessHub(loop)
    return hub
