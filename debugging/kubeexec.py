"""Pod exec over the apiserver's websocket, on the event loop: no thread, no private ApiClient per session.

Shared by the terminal (``shell.consumer``) and file logs (``logs.files``: ``tail -F`` over exec), so it sits at the
top of the app, beside what both share.

The kubernetes library's ``stream()`` gives each exec a blocking websocket client, its own TLS context (a CA file
parsed per session) and a reader thread: about 79 KiB a session, a thread handoff each way on every keystroke.
Here an exec is one ``websockets`` connection (the asyncio library uvicorn already brings, maintained, with flow
control: a full receive queue stops reading the socket, so a slow browser pauses the pod's output instead of
growing memory) sharing one ``ssl.SSLContext`` per cluster credential set (``pincompute.kube.podexec.tls_context``).

The framing is Kubernetes' remotecommand websocket protocol (``v5.channel.k8s.io``, else ``v4.channel.k8s.io``):
each binary message is one channel byte then the payload: 0 stdin, 1 stdout, 2 stderr, 3 error (a ``v1.Status``
JSON once the process ended), 4 resize (``{"Width": w, "Height": h}``); v5 adds 255 "close" whose payload is the
channel byte to half-close (stdin: the end of input).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

from django.conf import settings
from kubernetes import client as k8s
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, WebSocketException

from debugging.upstream import StreamFailure, lost
from pincompute.kube.podexec import SUBPROTOCOLS, auth_headers, exec_url, exit_code, tls_context

STDIN, STDOUT, STDERR, ERROR, RESIZE, CLOSE = 0, 1, 2, 3, 4, 255
OPEN_TIMEOUT = 10.0
CLOSE_TIMEOUT = 2.0
RECV_QUEUE = 4  # frames held before the socket stops being read (flow control towards the apiserver)
HANGUP = ("\x03", "\x15\x04")  # ^C, then ^U ^D: interrupt what runs, clear the line, end the shell's input
HANGUP_SECONDS = 0.15
ExecError = (OSError, WebSocketException, TimeoutError)  # what opening or using an exec may raise
PING_SECONDS, PING_TIMEOUT_SECONDS = 15.0, 15.0  # defaults of DEBUG_EXEC_PING_SECONDS / _TIMEOUT_SECONDS
KEEPALIVE_FAILED = "keepalive ping timeout"  # the reason websockets closes with when no pong came


def keepalive() -> tuple[float, float]:
    """(ping interval, pong timeout) of every exec websocket: a hung apiserver (a SIGSTOPped process, TCP still up)
    answers no ping, so the exec fails after interval + timeout (+ the close timeout) instead of staying open and
    silent. The apiserver answers pings on its exec websocket (``tests/debugging/test_live_upstream_failures``)."""
    return (
        float(getattr(settings, "DEBUG_EXEC_PING_SECONDS", PING_SECONDS)),
        float(getattr(settings, "DEBUG_EXEC_PING_TIMEOUT_SECONDS", PING_TIMEOUT_SECONDS)),
    )


def encode(channel: int, data: bytes) -> bytes:
    """One websocket message of the protocol: the channel byte, then the payload."""
    if not 0 <= channel <= 255:
        raise ValueError(f"channel {channel} is not a byte")
    return bytes((channel,)) + data


def decode(message: bytes | str) -> tuple[int, bytes]:
    """(channel, payload) of a message; ``ValueError`` for an empty one (it carries no channel)."""
    raw = message.encode() if isinstance(message, str) else message
    if not raw:
        raise ValueError("an empty message has no channel")
    return raw[0], raw[1:]


def resize_message(cols: int, rows: int) -> bytes:
    return encode(RESIZE, json.dumps({"Width": cols, "Height": rows}).encode())


def close_message(channel: int) -> bytes:
    """v5 only: half-close ``channel`` (``STDIN``: the process reads end of input)."""
    return encode(CLOSE, bytes((channel,)))


async def open_exec(
    api: k8s.ApiClient,
    namespace: str,
    pod: str,
    container: str,
    command: list[str],
    *,
    stdin: bool,
    tty: bool,
    subprotocols: tuple[str, ...] = SUBPROTOCOLS,
) -> ClientConnection:
    """The exec websocket, handshake done. A refusal (404 pod, 403, 400 container) raises ``InvalidStatus``."""
    cfg = api.configuration
    url = exec_url(cfg.host, namespace, pod, container, command, stdin=stdin, tty=tty)
    ping_interval, ping_timeout = keepalive()
    return await connect(
        url,
        ssl=tls_context(cfg) if url.startswith("wss://") else None,
        subprotocols=list(subprotocols),  # type: ignore[arg-type]
        additional_headers=auth_headers(cfg),
        compression=None,  # the apiserver does not deflate; a zlib context per session would cost ~300 KiB
        ping_interval=ping_interval,  # one sleeping task per session: a hung apiserver is noticed
        ping_timeout=ping_timeout,
        open_timeout=OPEN_TIMEOUT,
        close_timeout=CLOSE_TIMEOUT,  # a hung apiserver answers no close frame: do not hold the session's end 10 s
        max_queue=RECV_QUEUE,
        max_size=1 << 20,
        user_agent_header="pinconsole-exec",
    )


def refusal(exc: BaseException) -> str:
    """A short reason for an exec that could not be opened (the apiserver's Status message when it sent one)."""
    if isinstance(exc, InvalidStatus):
        body = exc.response.body or b""
        with contextlib.suppress(ValueError, AttributeError):
            return f"{exc.response.status_code} {json.loads(body).get('message', '')}".strip()
        return str(exc.response.status_code)
    if isinstance(exc, InvalidHandshake | ConnectionClosed):
        return f"{type(exc).__name__}: {exc}"
    return str(exc) or type(exc).__name__


@dataclass
class ExecResult:
    """How an exec ended: ``exited`` (``exit_code`` from the error channel), or ``error: ...`` when the connection to
    the apiserver broke or stopped answering (``failure``: 4502, never a normal end)."""

    reason: str
    exit_code: int | None = None
    failure: StreamFailure | None = None


def broken(exc: BaseException) -> StreamFailure:
    """Why an exec's connection ended abnormally: a keepalive that got no answer, or the connection broke."""
    sent = getattr(exc, "sent", None)
    if isinstance(exc, ConnectionClosed) and sent is not None and sent.reason == KEEPALIVE_FAILED:
        _, timeout = keepalive()
        return lost(f"no answer to a keepalive ping within {timeout:g} s")
    return lost(type(exc).__name__)


class Demux:
    """Splits received messages by channel: stdout/stderr text (UTF-8 decoded across message boundaries: a
    character may straddle two frames), the error channel's status kept for the exit code, the rest ignored."""

    def __init__(self) -> None:
        self.text = {ch: codecs.getincrementaldecoder("utf-8")("replace") for ch in (STDOUT, STDERR)}
        self.status = b""
        self.bytes_out = 0

    def feed(self, message: bytes | str) -> tuple[int, str] | None:
        """(channel, text) for output that completes at least one character, else ``None``."""
        if not message:  # v4 servers open each channel with an empty message
            return None
        channel, payload = decode(message)
        if channel == ERROR:
            self.status += payload
        elif channel in self.text and payload:
            self.bytes_out += len(payload)
            text = self.text[channel].decode(payload)
            return (channel, text) if text else None
        return None


class ExecSession:
    """One pod exec on the event loop: ``open``, then iterate ``output()`` (text, then one ``ExecResult``);
    ``write_stdin``/``resize`` send one message each, in the caller's order, with no handoff."""

    def __init__(
        self,
        api: k8s.ApiClient,
        namespace: str,
        pod: str,
        container: str,
        command: list[str],
        *,
        stdin: bool = True,
        tty: bool = True,
        subprotocols: tuple[str, ...] = SUBPROTOCOLS,
    ) -> None:
        self.subprotocols = subprotocols
        self.api, self.namespace, self.pod, self.container = api, namespace, pod, container
        self.command, self.stdin, self.tty = command, stdin, tty
        self.bytes_out = 0
        self.ws: ClientConnection | None = None
        self.stopping = False

    async def open(self) -> None:
        self.ws = await open_exec(
            *(self.api, self.namespace, self.pod, self.container, self.command),
            stdin=self.stdin,
            tty=self.tty,
            subprotocols=self.subprotocols,
        )

    async def output(self) -> AsyncIterator[str | ExecResult]:
        """stdout and stderr as one text stream (a terminal's), then how it ended."""
        async for item in self.channels():
            yield item if isinstance(item, ExecResult) else item[1]

    async def channels(self) -> AsyncIterator[tuple[int, str] | ExecResult]:
        """(``STDOUT`` or ``STDERR``, text decoded as UTF-8 across message boundaries), then how it ended.
        Nothing after ``close()`` started (the caller is going away)."""
        assert self.ws is not None
        demux, result = Demux(), ExecResult("exited")
        try:
            async for message in self.ws:
                out = demux.feed(message)
                self.bytes_out = demux.bytes_out
                if out is not None:
                    yield out
        except (ConnectionClosed, OSError) as exc:
            result = ExecResult(f"error: {type(exc).__name__}", failure=broken(exc))
        if self.stopping:
            return
        if result.reason == "exited":
            result.exit_code = exit_code(demux.status)
        yield result

    async def write_stdin(self, data: str) -> None:
        """Send input; dropped once the connection broke or is closing (``channels`` reports how it ended)."""
        if self.ws is not None and not self.stopping:
            with contextlib.suppress(*ExecError):
                await self.ws.send(encode(STDIN, data.encode()))

    async def resize(self, cols: int, rows: int) -> None:
        if self.ws is not None and not self.stopping:
            with contextlib.suppress(*ExecError):
                await self.ws.send(resize_message(cols, rows))

    async def close(self, *, hangup: bool = True) -> None:
        """End the exec. Closing the websocket alone does not end the process in the container (Kubernetes has no
        way to signal an exec'd process; kwok and kubelets leave an idle shell running), so a shell still running is
        first asked to leave as a terminal would: interrupt, clear the line, end of input."""
        ws = self.ws
        if ws is None or self.stopping:
            return
        self.stopping = True
        discard = asyncio.create_task(self._discard(ws))  # a full receive queue would stall the close handshake
        try:
            with contextlib.suppress(*ExecError):
                if hangup and self.stdin:
                    for keys in HANGUP:  # ^C flushes what the terminal holds: the rest goes after a pause
                        await ws.send(encode(STDIN, keys.encode()))
                        await asyncio.sleep(HANGUP_SECONDS)  # and before the stream is torn down
                if ws.subprotocol == SUBPROTOCOLS[0] and self.stdin:
                    await ws.send(close_message(STDIN))
                await ws.close()
        finally:
            discard.cancel()

    @staticmethod
    async def _discard(ws: ClientConnection) -> None:
        """Read and drop what still arrives while closing (the output's reader has gone)."""
        with contextlib.suppress(*ExecError):
            async for _ in ws:
                pass
