"""Two ASGI worker processes behind one port (``uvicorn --workers 2``) on Redis and PostgreSQL: log streams
opened through either worker, then a membership removal made in this (third) process closes every one of them
through Redis (the access hubs' subscription, ``debugging.accesshub``)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import websocket
from django.db import connection

from projects.members import remove_member
from tests.support.debugging import http_origin, member, ws_headers

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def two_workers(live_pods: Any) -> Iterator[str]:
    if not os.environ.get("REDIS_URL"):
        pytest.fail("two workers need the Redis channel layer (run without PINCONSOLE_TEST_LIGHT)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = urlsplit(os.environ["DATABASE_URL"])
    env = {**os.environ, "DATABASE_URL": urlunsplit(url._replace(path=f"/{connection.settings_dict['NAME']}"))}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "console.asgi:application",
            "--workers",
            "2",
            "--port",
            str(port),
            "--host",
            "127.0.0.1",
            "--log-level",
            "warning",
            "--lifespan",
            "off",
        ],
        env=env,
    )
    try:
        yield f"ws://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(20)


def open_stream(url: str, cookie: str) -> websocket.WebSocket:
    """A connected log stream; a worker's watch cache starts on its first request, so early tries may be 4404."""
    deadline = time.monotonic() + 60
    while True:
        try:
            ws = websocket.create_connection(url, header=[f"Cookie: {cookie}"], origin=http_origin(url), timeout=20)
        except (OSError, websocket.WebSocketException):
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.3)
            continue
        first = json.loads(ws.recv() or "{}")
        if first.get("state") == "connected":
            return ws
        ws.close()
        assert time.monotonic() < deadline, first
        time.sleep(0.5)


def close_code(ws: websocket.WebSocket) -> int:
    while True:
        opcode, frame = ws.recv_data_frame(True)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            return int.from_bytes(frame.data[:2], "big")


def test_a_removal_closes_streams_held_by_both_workers(two_workers, live_pods, project, user, admin_user):
    member(project, user, "viewer")
    cookie = dict(ws_headers(user))[b"cookie"].decode()
    url = f"{two_workers}/ws/logs/member-a/{project.namespace}/{live_pods['names'][0]}/app/"
    streams = [open_stream(url, cookie) for _ in range(4)]  # the kernel spreads them over both workers
    for ws in streams:
        while json.loads(ws.recv()).get("type") != "lines":
            pass

    started = time.monotonic()
    remove_member(project, "user", user.username, actor=admin_user)
    codes = [close_code(ws) for ws in streams]
    took = time.monotonic() - started
    for ws in streams:
        ws.close()

    assert codes == [4403] * 4 and took < 5
