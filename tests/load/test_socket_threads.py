"""Found by the load test: every websocket of a worker ran its synchronous work (session lookup,
``database_sync_to_async``) on ONE shared thread, so one slow call (an exec stream opening on a loaded apiserver)
held up every other socket's. A thread per socket fixed that at ~95 KiB a socket; now each socket is pinned to one
thread of a fixed pool (``console.syncthreads.SyncThreadPool``): threads stay bounded, a socket's calls stay on one
thread, and a socket blocked in sync code holds up only its own thread."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from asgiref.sync import sync_to_async

from console.asgi import application
from console.syncthreads import SyncThreadPool

GUARD = 10  # seconds: only so a broken pool fails instead of hanging


def ident() -> int:
    return threading.get_ident()


async def test_a_socket_blocked_in_sync_code_does_not_hold_up_another():
    release = threading.Event()
    threads: dict[str, int] = {}

    def slow() -> None:
        threads["slow"] = threading.get_ident()
        release.wait(GUARD)

    def quick() -> None:
        threads["quick"] = threading.get_ident()
        release.set()

    async def app(scope, receive, send):
        await sync_to_async(slow if scope["path"] == "/slow" else quick)()  # thread_sensitive, as Channels' DB calls

    wrapped = SyncThreadPool(app, threads=2)
    blocked = asyncio.create_task(wrapped({"type": "websocket", "path": "/slow"}, None, None))
    while "slow" not in threads:
        await asyncio.sleep(0.01)
    await asyncio.wait_for(wrapped({"type": "websocket", "path": "/quick"}, None, None), GUARD)
    await asyncio.wait_for(blocked, GUARD)

    assert threads["slow"] != threads["quick"]


async def test_many_sockets_share_a_bounded_number_of_threads_each_pinned_to_one():
    seen: dict[int, list[int]] = {}
    gate = asyncio.Event()

    async def app(scope, receive, send):
        calls = seen.setdefault(scope["n"], [])
        calls.append(await sync_to_async(ident)())
        await gate.wait()  # every socket open at once, as idle shells are
        for _ in range(3):
            calls.append(await sync_to_async(ident)())

    wrapped = SyncThreadPool(app, threads=4)
    sockets = [asyncio.create_task(wrapped({"type": "websocket", "n": n}, None, None)) for n in range(40)]
    while len(seen) < 40 or any(not calls for calls in seen.values()):
        await asyncio.sleep(0.01)
    assert sum(t.sockets for t in wrapped.threads) == 40
    gate.set()
    await asyncio.wait_for(asyncio.gather(*sockets), GUARD)

    assert all(len(set(calls)) == 1 and len(calls) == 4 for calls in seen.values())  # pinned: one thread each
    used = {calls[0] for calls in seen.values()}
    assert len(used) == 4  # bounded by the pool, and spread over all of it
    assert sorted(t.sockets for t in wrapped.threads) == [0, 0, 0, 0]
    assert all(t.pending == 0 for t in wrapped.threads)


async def test_opens_go_to_idle_threads_while_one_socket_is_blocked():
    release = threading.Event()
    opened: list[int] = []

    async def app(scope, receive, send):
        if scope["path"] == "/slow":
            await sync_to_async(release.wait)(GUARD)
        else:
            opened.append(await sync_to_async(ident)())

    wrapped = SyncThreadPool(app, threads=3)
    blocked = asyncio.create_task(wrapped({"type": "websocket", "path": "/slow"}, None, None))
    while not any(t.pending for t in wrapped.threads):
        await asyncio.sleep(0.01)
    slow_thread = next(t for t in wrapped.threads if t.pending)
    for _ in range(20):  # sockets opening one after another while the slow one still holds its thread
        await asyncio.wait_for(wrapped({"type": "websocket", "path": "/open"}, None, None), GUARD)
    assert len(opened) == 20 and not release.is_set() and slow_thread.pending == 1
    release.set()
    await asyncio.wait_for(blocked, GUARD)
    assert len(set(opened)) <= 2  # never the blocked thread


async def test_a_task_that_outlives_its_socket_still_runs_on_the_socket_thread():
    results: dict[str, Any] = {}
    ended = asyncio.Event()

    async def late() -> None:
        await ended.wait()
        results["late"] = await sync_to_async(ident)()  # e.g. an end() racing the client's disconnect

    async def app(scope, receive, send):
        results["during"] = await sync_to_async(ident)()
        results["task"] = asyncio.create_task(late())

    wrapped = SyncThreadPool(app, threads=2)
    await wrapped({"type": "websocket"}, None, None)
    ended.set()
    await asyncio.wait_for(results["task"], GUARD)
    assert results["late"] == results["during"]


def test_the_portal_serves_websockets_through_the_pool():
    websocket_app = application.application_mapping["websocket"]
    assert isinstance(websocket_app, SyncThreadPool)
    assert len(websocket_app.threads) >= 2
