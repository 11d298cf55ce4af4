"""What the SDK and CLI tests share: the SDK imported from its own directory (``sdk/``, installable on its own, not
part of the portal's package) and ``asgi_portal``, the portal's ASGI app (HTTP and
the websocket consumers) served by uvicorn, recording each answer so a test sees its requests from the server."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

SDK_DIR = Path(__file__).resolve().parents[2] / "sdk"
if str(SDK_DIR) not in sys.path:
    sys.path.insert(0, str(SDK_DIR))


@dataclass(frozen=True)
class Answer:
    """One HTTP answer of the served portal, as the server sent it."""

    method: str
    path: str
    status: int
    retry_after: str | None
    at: float  # time.monotonic() when the answer started


@dataclass
class Served:
    url: str
    answers: list[Answer] = field(default_factory=list)

    def to(self, method: str, path: str) -> list[Answer]:
        """The answers to ``method path`` (the path without the query), oldest first."""
        return [a for a in self.answers if a.method == method and a.path == path]


class Recorder:
    """ASGI middleware: every HTTP answer's status (and Retry-After) into ``answers``, as the client got it."""

    def __init__(self, app: Any, answers: list[Answer]) -> None:
        self.app, self.answers = app, answers

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def recording_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = {name.lower(): value for name, value in message.get("headers") or []}
                retry_after = headers.get(b"retry-after")
                self.answers.append(
                    Answer(
                        scope["method"],
                        scope["path"],
                        message["status"],
                        retry_after.decode() if retry_after is not None else None,
                        time.monotonic(),
                    )
                )
            await send(message)

        await self.app(scope, receive, recording_send)


@pytest.fixture
def asgi_portal() -> Iterator[Served]:
    """``console.asgi.application`` on a free port (uvicorn in a thread of this process: the same database, watch
    caches and settings as the test)."""
    import uvicorn

    from console.asgi import application

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    served = Served(f"http://127.0.0.1:{sock.getsockname()[1]}")
    # ws="websockets-sansio": with uvicorn's default (legacy websockets) implementation, the consumer's close() after
    # a shell ended on its own did not return until the server stopped, so shell.close was audited only then.
    config = uvicorn.Config(
        Recorder(application, served.answers), log_level="warning", lifespan="off", ws="websockets-sansio"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield served
    server.should_exit = True
    thread.join(10)
