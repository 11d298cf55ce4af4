"""Shells on the pooled sync threads (``console.syncthreads``) against the real local control plane: a socket shares
its sync thread with others, so nothing on the keystroke path may wait for that thread (Channels' dispatch ran
``close_old_connections`` on it before every message; ``PolicedConsumer.dispatch`` skips that hop)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from channels.db import database_sync_to_async

from console.asgi import application
from console.syncthreads import SyncThreadPool
from tests.support.debugging import member, read_until, ws_headers
from tests.support.wsclient import WebsocketCommunicator

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


async def test_keystrokes_reach_the_pod_while_the_sockets_sync_thread_is_busy(live_pods, project, user):
    await database_sync_to_async(member)(project, user, "developer")
    pooled = SyncThreadPool(application.application_mapping["websocket"].app, threads=1)
    path = f"/ws/exec/member-a/{project.namespace}/{live_pods['names'][0]}/app/"
    comm = WebsocketCommunicator(pooled, path, headers=ws_headers(user))
    assert (await comm.connect(timeout=20))[0]
    status = await comm.receive_json_from(timeout=20)
    assert status["state"] == "connected", status

    release = threading.Event()
    busy = pooled.threads[0].submit(release.wait, 60)  # another socket's slow sync work on the same thread
    try:
        await comm.send_json_to({"type": "stdin", "data": "echo typed-$((40+2))\r"})
        await read_until(comm, "typed-42")
        assert not release.is_set() and not busy.done()  # echoed while the thread was still held
    finally:
        release.set()
    await asyncio.wrap_future(busy)
    await comm.disconnect()
