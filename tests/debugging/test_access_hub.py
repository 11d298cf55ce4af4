"""The access hub (``debugging.accesshub``) against the real Redis: the lease that lets keystrokes compare the access
epoch in memory, the revoker's wait for acknowledgements, a lost subscription, and the one-process mode without
Redis. The shells that rely on it are in ``test_live_policy`` (a removal closes the shell, the next keystroke never
runs) and ``test_workers`` (two worker processes)."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from channels.db import database_sync_to_async
from django.db import transaction

from accounts.live_access import ACCESS_CHANNEL, access_changed, access_epoch
from debugging.accesshub import _HUBS, AccessHub, access_hub

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


class Recorder:
    """A socket as the hub sees it: what it was told."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def access_changed(self, message: dict[str, Any]) -> None:
        self.messages.append(message)


def redis_client() -> redis.Redis:
    return redis.Redis.from_url(os.environ["REDIS_URL"])


def revoke(user_id: int, reason: str = "test") -> float:
    """``access_changed`` as a service calls it (in a transaction, sent on commit); the seconds the caller waited."""
    started = time.monotonic()
    with transaction.atomic():
        access_changed([user_id], reason=reason)
    return time.monotonic() - started


async def until(condition: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.02)


@pytest.fixture
def hub() -> Iterator[None]:
    """The test's event loop hub, left by every socket afterwards (its subscription then ends)."""
    yield
    for hub in list(_HUBS.values()):
        for user_id in list(hub.sockets):
            for socket in list(hub.sockets[user_id]):
                hub.leave(user_id, socket)


@pytest.fixture
def silent_subscriber() -> Iterator[None]:
    """A process that subscribed to the hubs' channel and then stopped answering (a stalled worker)."""
    pubsub = redis_client().pubsub()
    pubsub.subscribe(ACCESS_CHANNEL)
    pubsub.get_message(timeout=2)  # the subscription is in place before the test publishes
    yield
    pubsub.close()


async def test_while_the_lease_holds_the_epoch_is_read_from_memory_and_a_revocation_raises_it_first(
    hub, user, settings
):
    # A revoker waits for the hubs' acknowledgements at most one lease: a longer one than the default 1 s tells an
    # acknowledgement from a wait run out on a loaded machine too.
    settings.DEBUG_ACCESS_LEASE_SECONDS = 5
    hub = access_hub()
    socket = Recorder()
    hub.join(user.pk, socket)
    await until(lambda: time.monotonic() < hub.fresh_until)  # the first pong
    before = await hub.epoch(user.pk)  # a GET, kept: the subscription was live throughout
    gets = redis_client().info("commandstats").get("cmdstat_get", {}).get("calls", 0)

    known = [hub.known_epoch(user.pk) for _ in range(50)]
    took = await database_sync_to_async(revoke)(user.pk, "membership removed")
    after = hub.known_epoch(user.pk)  # nothing awaited since the revoker returned

    assert known == [before] * 50
    assert redis_client().info("commandstats").get("cmdstat_get", {}).get("calls", 0) == gets
    assert after == before + 1 == await database_sync_to_async(access_epoch)(user.pk)
    assert took < 5  # acknowledged, not waited out
    await until(lambda: socket.messages)
    assert socket.messages[0]["reason"] == "membership removed"


async def test_a_silent_subscriber_holds_a_revocation_one_lease_then_it_returns(hub, user, settings, silent_subscriber):
    hub = access_hub()
    settings.DEBUG_ACCESS_LEASE_SECONDS = 1
    hub.join(user.pk, Recorder())
    await until(lambda: time.monotonic() < hub.fresh_until)

    took = await database_sync_to_async(revoke)(user.pk)

    assert 0.9 <= took < 2.5
    assert hub.known_epoch(user.pk) is None or hub.known_epoch(user.pk) == await database_sync_to_async(access_epoch)(
        user.pk
    )


async def test_a_revocation_with_no_hub_listening_returns_at_once(user):
    assert redis_client().pubsub_numsub(ACCESS_CHANNEL)[0][1] == 0
    took = await database_sync_to_async(revoke)(user.pk)
    assert took < 0.5


async def test_a_lost_subscription_voids_the_memory_until_a_new_one_holds(hub, user):
    hub = access_hub()
    socket = Recorder()
    hub.join(user.pk, socket)
    await until(lambda: time.monotonic() < hub.fresh_until)
    await hub.epoch(user.pk)
    assert hub.known_epoch(user.pk) is not None
    generation = hub.generation

    killed = redis_client().client_kill_filter(_type="pubsub")
    await until(lambda: hub.generation > generation and hub.known_epoch(user.pk) is None, timeout=5)
    # Cut off, a change is not pushed to this hub: the epoch comes from Redis, and is new.
    await database_sync_to_async(revoke)(user.pk)
    newest = await database_sync_to_async(access_epoch)(user.pk)
    assert await hub.epoch(user.pk) == newest

    await until(lambda: time.monotonic() < hub.fresh_until, timeout=10)  # subscribed again, a new lease
    assert killed >= 1
    assert await hub.epoch(user.pk) == newest
    assert hub.known_epoch(user.pk) == newest


@pytest.mark.parametrize(
    "garbage",
    [
        b"not json",
        b"[1, 2]",
        b'{"users": "x"}',
        b'{"users": [1], "epochs": {"a": "b"}, "reply": 7}',
        b'{"users": [{}]}',
    ],
)
async def test_an_unreadable_change_voids_the_memory_and_the_subscription_stays(hub, user, garbage):
    """Another release's format or a stray publisher: whose access moved is unknown, so keystrokes read Redis until
    the next pong; the hub keeps its one subscription and the next revocation is pushed and acknowledged as before."""
    hub = access_hub()
    socket = Recorder()
    hub.join(user.pk, socket)
    await until(lambda: time.monotonic() < hub.fresh_until)
    await hub.epoch(user.pk)
    generation, runner = hub.generation, hub.runner

    redis_client().publish(ACCESS_CHANNEL, garbage)
    await until(lambda: hub.generation > generation)

    assert hub.runner is runner and runner is not None and not runner.done()
    await until(lambda: time.monotonic() < hub.fresh_until)  # leased again by the next pong
    took = await database_sync_to_async(revoke)(user.pk, "after the garbage")
    assert took < 1  # acknowledged by the same subscription
    assert hub.known_epoch(user.pk) == await database_sync_to_async(access_epoch)(user.pk)
    await until(lambda: socket.messages)
    assert socket.messages[-1]["reason"] == "after the garbage"


def test_a_stalled_worker_loop_reads_redis_once_its_lease_ran_out(user, settings):
    """A hub whose event loop stops (a CPU-bound request, a paused process) for longer than a lease: the revoker
    waits the lease out, and the first keystroke the loop runs afterwards reads the new epoch from Redis."""
    settings.DEBUG_ACCESS_LEASE_SECONDS = 1
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        hub: AccessHub = asyncio.run_coroutine_threadsafe(_make_hub(user.pk), loop).result(10)
        stall = threading.Event()
        loop.call_soon_threadsafe(lambda: stall.wait(10))  # the loop runs nothing until set
        time.sleep(0.1)

        took = revoke(user.pk)
        seen = asyncio.run_coroutine_threadsafe(_keystroke_check(hub, user.pk), loop)
        stall.set()

        assert took >= 0.9
        assert seen.result(10) == access_epoch(user.pk)
    finally:
        asyncio.run_coroutine_threadsafe(_close_hub(hub, user.pk), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()


async def _close_hub(hub: AccessHub, user_id: int) -> None:
    for socket in list(hub.sockets.get(user_id, ())):
        hub.leave(user_id, socket)
    if hub.runner is not None:
        await asyncio.wait_for(hub.runner, 5)
    if hub.client is not None:
        await hub.client.aclose()


async def _make_hub(user_id: int) -> AccessHub:
    hub = AccessHub(asyncio.get_running_loop())
    hub.join(user_id, Recorder())
    await until(lambda: time.monotonic() < hub.fresh_until)
    await hub.epoch(user_id)
    return hub


async def _keystroke_check(hub: AccessHub, user_id: int) -> int:
    """What ``still_allowed`` does first: memory if trusted, else Redis."""
    known = hub.known_epoch(user_id)
    return known if known is not None else await hub.epoch(user_id)


async def test_without_redis_one_process_hubs_read_the_local_cache_and_are_told_directly(user, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    hub = AccessHub(asyncio.get_running_loop())
    socket = Recorder()
    hub.join(user.pk, socket)
    before = hub.known_epoch(user.pk)

    took = await database_sync_to_async(revoke)(user.pk, "role changed")

    assert hub.runner is None  # no subscription: nothing to subscribe to
    assert hub.known_epoch(user.pk) == (before or 0) + 1 and took < 0.5
    await until(lambda: socket.messages)
    assert socket.messages == [{"type": "access.changed", "reason": "role changed", "project": "", "session": ""}]


def test_the_published_change_names_users_epochs_and_where_to_acknowledge(user):
    pubsub = redis_client().pubsub()
    pubsub.subscribe(ACCESS_CHANNEL)
    pubsub.get_message(timeout=2)
    acker = threading.Thread(target=_ack_one, args=(pubsub,), daemon=True)
    acker.start()
    took = revoke(user.pk, "signed out")
    acker.join(5)
    payload = acker.payload  # type: ignore[attr-defined]
    pubsub.close()

    assert payload["users"] == [user.pk] and payload["epochs"] == {str(user.pk): access_epoch(user.pk)}
    assert payload["reason"] == "signed out" and payload["reply"].startswith(ACCESS_CHANNEL)
    assert took < 1
    assert not redis_client().exists(payload["reply"])  # the revoker cleans its reply list


def _ack_one(pubsub: Any) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        message = pubsub.get_message(timeout=1)
        if message and message["type"] == "message":
            payload = json.loads(message["data"])
            threading.current_thread().payload = payload  # type: ignore[attr-defined]
            redis_client().rpush(payload["reply"], 1)
            return


async def test_a_change_applied_while_the_epoch_is_being_read_is_not_lost_to_the_older_read(hub, user):
    """A GET in flight when a change arrives may return the epoch from before it: the hub keeps the higher value."""
    hub = access_hub()
    hub.join(user.pk, Recorder())
    await until(lambda: time.monotonic() < hub.fresh_until)
    key = hub.redis_backend.make_key(f"access-epoch:{user.pk}")
    redis_client().set(key, 5)  # what the GET reads: the change below is applied while it is in flight
    reading = asyncio.ensure_future(hub.epoch(user.pk))
    asyncio.get_running_loop().call_soon(
        hub.apply, {"type": "access.changed", "users": [user.pk], "epochs": {str(user.pk): 6}}
    )

    read = await reading

    assert read == 5 and hub.known_epoch(user.pk) == 6


class SwallowingPubSub:
    """A pubsub whose ping swallows a cancellation that lands inside it, as redis-py's can (redis/redis-py#2028)."""

    def __init__(self) -> None:
        self.pings = 0

    async def ping(self, _message: str) -> None:
        self.pings += 1
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            return


async def test_the_pinger_stops_with_its_subscription_even_when_a_cancellation_is_swallowed(settings):
    settings.DEBUG_ACCESS_LEASE_SECONDS = 0.2
    hub = AccessHub(asyncio.get_running_loop())
    pubsub, subscribed = SwallowingPubSub(), asyncio.Event()
    subscribed.set()
    pinger = asyncio.get_running_loop().create_task(hub._ping(pubsub, subscribed))
    await until(lambda: pubsub.pings == 1)

    subscribed.clear()  # what the subscription's end does, before it cancels the pinger
    pinger.cancel()

    await asyncio.wait_for(asyncio.shield(pinger), 2)
    assert pubsub.pings == 1  # no ping after the end
