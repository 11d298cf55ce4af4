"""The leanest Python hop we could write for a browser terminal (a helper of ``bench/debugging.py``, not a test).

    python bench/leanrelay.py PORT KUBECONFIG CONTEXT NAMESPACE

Like ``keyrelay.py`` (the portal's message shapes in, the apiserver's exec protocol out, one shell per connection
``/<pod>``, nothing of the portal), but with no asyncio streams, tasks, queues or futures on the keystroke's way:
both websockets are ``websockets``' sans-I/O protocols driven from ``asyncio.Protocol`` callbacks on uvloop, and a
frame read on one side is written to the other side's transport in the same callback. What is left per keystroke
is what no Python hop can avoid: two frame parses, two frame writes, a JSON decode and encode, and the wake-ups of
one more process. Its round trip bounds from below what rebuilding the portal's shell path could reach.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STDIN, STDOUT, STDERR, RESIZE = 0, 1, 2, 4


class Upstream(asyncio.Protocol):
    """The exec websocket to the apiserver; each stdout/stderr frame goes straight to ``browser``."""

    def __init__(self, browser: Browser, url: str, headers: dict[str, str]) -> None:
        from websockets.client import ClientProtocol
        from websockets.typing import Subprotocol
        from websockets.uri import parse_uri

        self.browser = browser
        self.ws = ClientProtocol(
            parse_uri(url), subprotocols=[Subprotocol("v5.channel.k8s.io"), Subprotocol("v4.channel.k8s.io")]
        )
        self.request = self.ws.connect()
        self.request.headers.update(headers)
        self.transport: Any = None
        self.opened = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.ws.send_request(self.request)
        self._flush()

    def data_received(self, data: bytes) -> None:
        from websockets.frames import Frame, Opcode
        from websockets.http11 import Response

        self.ws.receive_data(data)
        for event in self.ws.events_received():
            if isinstance(event, Response):
                if self.ws.handshake_exc is not None:
                    self.opened.set_exception(self.ws.handshake_exc)
                else:
                    self.opened.set_result(None)
            elif isinstance(event, Frame) and event.opcode is Opcode.BINARY and event.data:
                channel, payload = event.data[0], event.data[1:]
                if channel in (STDOUT, STDERR) and payload:
                    self.browser.stdout(payload.decode("utf-8", "replace"))
        self._flush()

    def send(self, channel: int, data: bytes) -> None:
        self.ws.send_binary(bytes((channel,)) + data)
        self._flush()

    def _flush(self) -> None:
        for chunk in self.ws.data_to_send():
            if chunk:
                self.transport.write(chunk)

    def connection_lost(self, exc: Exception | None) -> None:
        self.browser.close()


class Browser(asyncio.Protocol):
    """The client's websocket: a stdin message is written upstream in the callback that parsed it."""

    def __init__(self, exec_to: Any) -> None:
        from websockets.server import ServerProtocol

        self.ws = ServerProtocol()
        self.exec_to = exec_to  # (pod) -> awaitable Upstream
        self.upstream: Upstream | None = None
        self.early: list[Any] = []  # frames before the exec opened (the client's first resize)
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        from websockets.frames import Frame, Opcode
        from websockets.http11 import Request

        self.ws.receive_data(data)
        for event in self.ws.events_received():
            if isinstance(event, Request):
                self.ws.send_response(self.ws.accept(event))
                asyncio.get_running_loop().create_task(self._open(event.path.strip("/")))
            elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                if self.upstream is None:
                    self.early.append(event.data)
                else:
                    self._relay(self.upstream, event.data)
        self._flush()

    @staticmethod
    def _relay(upstream: Upstream, data: bytes) -> None:
        message = json.loads(data)
        if message.get("type") == "stdin":
            upstream.send(STDIN, message["data"].encode())
        elif message.get("type") == "resize":
            upstream.send(RESIZE, json.dumps({"Width": int(message["cols"]), "Height": int(message["rows"])}).encode())

    async def _open(self, pod: str) -> None:
        self.upstream = await self.exec_to(self, pod)
        for data in self.early:
            self._relay(self.upstream, data)
        self.early.clear()

    def stdout(self, text: str) -> None:
        self.ws.send_text(json.dumps({"type": "stdout", "data": text}).encode())
        self._flush()

    def _flush(self) -> None:
        for chunk in self.ws.data_to_send():
            if chunk:
                self.transport.write(chunk)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.upstream is not None and self.upstream.transport is not None:
            self.upstream.transport.close()


async def main(port: int, kubeconfig: str, context: str, namespace: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "console.settings")
    import django

    django.setup()  # the TLS helpers read a setting
    from urllib.parse import urlsplit

    from devtools.localcp.nodes import api_client
    from pincompute.kube.podexec import auth_headers, exec_url, tls_context

    cfg = api_client(kubeconfig, context).configuration
    tls = tls_context(cfg)
    where = urlsplit(cfg.host)
    loop = asyncio.get_running_loop()

    async def exec_to(browser: Browser, pod: str) -> Upstream:
        url = exec_url(cfg.host, namespace, pod, "app", ["/bin/sh"], stdin=True, tty=True)
        _, upstream = await loop.create_connection(
            lambda: Upstream(browser, url, auth_headers(cfg)), where.hostname, where.port, ssl=tls
        )
        await upstream.opened
        return upstream

    server = await loop.create_server(lambda: Browser(exec_to), "127.0.0.1", port)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    import uvloop

    uvloop.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]))
