"""Found by the load test: every websocket of a worker ran its synchronous work (session lookup,
``database_sync_to_async``) on ONE shared thread, so one slow call (an exec stream opening on a loaded apiserver)
held up every other socket's. Each connection now has a thread of its own (``console.asgi.SyncThreadPerSocket``)."""

from __future__ import annotations

import asyncio
import threading

from asgiref.sync import sync_to_async

from console.asgi import SyncThreadPerSocket


async def test_a_socket_blocked_in_sync_code_does_not_hold_up_another():
    release = threading.Event()
    threads: dict[str, int] = {}

    def slow() -> None:
        threads["slow"] = threading.get_ident()
        release.wait(10)

    def quick() -> None:
        threads["quick"] = threading.get_ident()
        release.set()

    async def app(scope, receive, send):
        await sync_to_async(slow if scope["path"] == "/slow" else quick)()  # thread_sensitive, as Channels' DB calls

    wrapped = SyncThreadPerSocket(app)
    blocked = asyncio.create_task(wrapped({"type": "websocket", "path": "/slow"}, None, None))
    while "slow" not in threads:
        await asyncio.sleep(0.01)
    await asyncio.wait_for(wrapped({"type": "websocket", "path": "/quick"}, None, None), 5)
    await asyncio.wait_for(blocked, 5)

    assert threads["slow"] != threads["quick"]
