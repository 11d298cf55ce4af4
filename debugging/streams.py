"""Kubernetes streams handed to asyncio boundedly: pod logs as asyncio tasks, pod exec in a reader thread.

Logs are plain chunked HTTP responses, read by an async client on the event loop (no thread per stream);
the exec websocket comes from the blocking kubernetes client, read in a thread of its own. The event loop only
ever touches bounded structures:
- logs go through `LineBuffer`, a deque with a maximum length: when the browser is slower than the pod
  the oldest lines are dropped and counted (a log viewer may lose lines, it must not grow memory);
- terminal output goes through an `asyncio.Queue(maxsize)` that the reader thread fills with a blocking
  `run_coroutine_threadsafe(...).result()`: a full queue pauses the reader (nothing is dropped from a
  terminal; the pod's websocket simply is not read until the browser catches up).
Stopping closes the underlying socket so a blocked read returns at once.
"""

from __future__ import annotations

import asyncio
import calendar
import contextlib
import functools
import json
import re
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

import httpx
from kubernetes import client as k8s
from kubernetes.stream import stream as k8s_stream
from websocket import WebSocketException

LOG_TAIL_LINES = 200
LOG_BUFFER_LINES = 2000
EXEC_QUEUE_CHUNKS = 64
HANGUP = ("\x03", "\x15\x04")  # ^C, then ^U ^D: interrupt what runs, clear the line, end the shell's input
HANGUP_SECONDS = 0.15


@functools.lru_cache(maxsize=4096)
def _epoch_seconds(main: str) -> int:
    """``YYYY-mm-ddTHH:MM:SS`` -> seconds; cached: a busy log's lines share their second (strptime is slow)."""
    return calendar.timegm(time.strptime(main, "%Y-%m-%dT%H:%M:%S"))


def ts_micros(ts: str) -> int:
    """RFC3339(Nano) -> integer microseconds since the epoch (0 when unparsable)."""
    main, _, frac = ts.rstrip("Z").partition(".")
    try:
        seconds = _epoch_seconds(main)
        micros = int((frac + "000000")[:6] or 0)
    except ValueError:
        return 0
    return seconds * 1_000_000 + micros


@dataclass(frozen=True)
class RawLine:
    pod: str
    container: str
    ts: str
    text: str
    cluster: str = ""  # set by the streams of a workload across member clusters


class LineBuffer:
    """Thread-safe bounded buffer from reader threads to one async sender; oldest lines drop first."""

    def __init__(self, loop: asyncio.AbstractEventLoop, maxlen: int = LOG_BUFFER_LINES) -> None:
        self._lines: deque[RawLine] = deque(maxlen=maxlen)
        self._lock = threading.Lock()
        self._loop = loop
        self.ready = asyncio.Event()
        self.dropped = 0

    def put(self, line: RawLine) -> None:
        with self._lock:
            if len(self._lines) == self._lines.maxlen:
                self.dropped += 1
            was_empty = not self._lines
            self._lines.append(line)
        if was_empty:
            self._loop.call_soon_threadsafe(self.ready.set)

    def drain(self) -> tuple[list[RawLine], int]:
        """All buffered lines and the number dropped since the previous drain."""
        with self._lock:
            lines, dropped = list(self._lines), self.dropped
            self._lines.clear()
            self.dropped = 0
            self.ready.clear()
        return lines, dropped


@functools.lru_cache(maxsize=64)
def _tls(cafile: str | None, certfile: str | None, keyfile: str | None, verify: bool) -> ssl.SSLContext:
    """One TLS context per cluster credential set (contexts are shareable; loading a CA file is not free)."""
    if not verify:
        ctx = ssl.create_default_context()
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    else:
        ctx = ssl.create_default_context(cafile=cafile)
    if certfile:
        ctx.load_cert_chain(certfile, keyfile)
    return ctx


def log_http_client(api: k8s.ApiClient) -> httpx.AsyncClient:
    """An async HTTP client with the cluster ApiClient's address, TLS and credentials (same configuration)."""
    cfg = api.configuration
    headers = {a["key"]: a["value"] for a in cfg.auth_settings().values() if a.get("in") == "header" and a["value"]}
    return httpx.AsyncClient(
        base_url=cfg.host,
        verify=_tls(cfg.ssl_ca_cert, cfg.cert_file, cfg.key_file, bool(cfg.verify_ssl)),
        headers=headers,
        timeout=httpx.Timeout(10.0, read=None),
    )


class LogFollower:
    """Follows one container's log (``pods/log?follow&timestamps``) as an asyncio task and pushes lines into a
    LineBuffer. No thread per stream: a selector socket's 20 follows are 20 tasks on the event loop, each an
    open HTTP response read as it arrives. ``start``/``stop`` are called from the event loop."""

    def __init__(
        self,
        api: k8s.ApiClient,
        namespace: str,
        pod: str,
        container: str,
        sink: LineBuffer,
        *,
        tail_lines: int | None = LOG_TAIL_LINES,
        since_seconds: int | None = None,
        on_end: Callable[[str, str, str], None] | None = None,
        previous: bool = False,
        follow: bool = True,
        cluster: str = "",
    ) -> None:
        self.api, self.namespace, self.pod, self.container, self.cluster = api, namespace, pod, container, cluster
        self.sink, self.tail_lines, self.since_seconds, self.on_end = sink, tail_lines, since_seconds, on_end
        self.previous, self.follow = previous, follow
        self._task: asyncio.Task[None] | None = None

    def params(self) -> dict[str, str]:
        params = {"container": self.container, "timestamps": "true"}
        if self.follow:
            params["follow"] = "true"
        if self.previous:
            params["previous"] = "true"
        if self.since_seconds is not None:
            params["sinceSeconds"] = str(self.since_seconds)
        if self.tail_lines is not None:
            params["tailLines"] = str(self.tail_lines)
        return params

    def start(self) -> None:
        self._task = self.sink._loop.create_task(self._run(), name=f"logs-{self.pod}-{self.container}")

    async def _run(self) -> None:
        reason, path = "ended", f"/api/v1/namespaces/{self.namespace}/pods/{self.pod}/log"
        try:
            async with (
                log_http_client(self.api) as http,
                http.stream("GET", path, params=self.params()) as resp,
            ):
                if resp.status_code >= 400:
                    body = (await resp.aread())[:300].decode("utf-8", "replace")
                    reason = f"error: {resp.status_code} {_status_message(body)}"
                else:
                    pending = b""
                    async for chunk in resp.aiter_bytes():
                        pending += chunk
                        *complete, pending = pending.split(b"\n")
                        for raw in complete:
                            self._emit(raw)
                    if pending:
                        self._emit(pending)
        except asyncio.CancelledError:
            raise
        except (httpx.HTTPError, OSError, ssl.SSLError) as exc:
            reason = f"error: {type(exc).__name__}"
        if self.on_end is not None:
            self.on_end(self.pod, self.container, reason)

    def _emit(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").rstrip("\r")
        ts, _, body = text.partition(" ")
        self.sink.put(RawLine(self.pod, self.container, ts, body, self.cluster))

    def stop(self) -> None:
        """Cancels the task: the response is closed by its context managers."""
        if self._task is not None:
            self._task.cancel()


def _status_message(body: str) -> str:
    try:
        found = json.loads(body)
    except ValueError:
        return body.strip()
    return str(found.get("message", "")) if isinstance(found, dict) else body.strip()


def _exit_code(ws: Any) -> int | None:
    """Exit status from the error channel (3): a v1 Status. Kubernetes puts the code in
    details.causes[ExitCode]; some runtimes (kwok) only say "exit status N" in the message."""
    try:
        status = json.loads(ws.read_channel(3) or "null")
    except ValueError:
        return None
    if not isinstance(status, dict):
        return None
    if status.get("status") == "Success":
        return 0
    for cause in (status.get("details") or {}).get("causes") or []:
        if cause.get("reason") == "ExitCode" and str(cause.get("message", "")).isdigit():
            return int(cause["message"])
    found = re.search(r"exit (?:status|code) (\d+)", str(status.get("message", "")))
    return int(found.group(1)) if found else None


@dataclass
class ExecResult:
    reason: str
    exit_code: int | None = None


class ExecSession:
    """One pod exec (TTY) bridged to an asyncio queue; writes go through a single ordered worker."""

    def __init__(
        self,
        api: k8s.ApiClient,
        namespace: str,
        pod: str,
        container: str,
        loop: asyncio.AbstractEventLoop,
        command: list[str] | None = None,
    ) -> None:
        # stream() swaps api_client.request while it connects: use a private ApiClient (same config)
        # so concurrent REST calls on the shared pooled client are never routed through a websocket.
        self._api = k8s.ApiClient(configuration=api.configuration)
        self.namespace, self.pod, self.container = namespace, pod, container
        self.command = command or ["/bin/sh", "-c", "command -v bash >/dev/null && exec bash || exec sh"]
        self.loop = loop
        self.output: asyncio.Queue[str | ExecResult] = asyncio.Queue(maxsize=EXEC_QUEUE_CHUNKS)
        self.bytes_out = 0
        self._ws: Any = None
        self._stopping = threading.Event()
        self._write_lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def open(self) -> None:
        """Blocking: connect the exec websocket (call from a worker thread)."""
        self._ws = k8s_stream(
            k8s.CoreV1Api(self._api).connect_get_namespaced_pod_exec,
            self.pod,
            self.namespace,
            container=self.container,
            command=self.command,
            stdin=True,
            stdout=True,
            stderr=True,
            tty=True,
            _preload_content=False,
        )

    def start_reader(self) -> None:
        self._thread = threading.Thread(target=self._read_loop, name=f"exec-{self.pod}", daemon=True)
        self._thread.start()

    def _put(self, item: str | ExecResult) -> bool:
        """Blocking put into the bounded asyncio queue: a full queue pauses this reader (backpressure)."""
        fut = asyncio.run_coroutine_threadsafe(self.output.put(item), self.loop)
        while True:
            try:
                fut.result(timeout=0.5)
                return True
            except FutureTimeout:
                if self._stopping.is_set():
                    fut.cancel()
                    return False

    def _read_loop(self) -> None:
        ws, result = self._ws, ExecResult("exited")
        try:
            while ws.is_open() and not self._stopping.is_set():
                ws.update(timeout=0.25)
                for data in (
                    ws.read_stdout() if ws.peek_stdout() else "",
                    ws.read_stderr() if ws.peek_stderr() else "",
                ):
                    if data:
                        self.bytes_out += len(data.encode())
                        if not self._put(data):
                            return
            if not self._stopping.is_set():
                result.exit_code = _exit_code(ws)
        except (WebSocketException, OSError, ValueError) as exc:
            result = ExecResult("stopped" if self._stopping.is_set() else f"error: {type(exc).__name__}")
        except (TypeError, AttributeError):
            # close() from the event loop set the client's socket to None under ws.update(): the
            # kubernetes WSClient then fails inside poll(). Only expected while stopping.
            if not self._stopping.is_set():
                raise
            return
        if not self._stopping.is_set():
            self._put(result)

    def write_stdin(self, data: str) -> None:
        with self._write_lock:
            if self._ws is not None and self._ws.is_open():
                self._ws.write_stdin(data)

    def resize(self, cols: int, rows: int) -> None:
        with self._write_lock:
            if self._ws is not None and self._ws.is_open():
                self._ws.write_channel(4, json.dumps({"Width": cols, "Height": rows}))

    def close(self) -> None:
        """Blocking: end the exec. Closing the websocket alone does not end the process in the container (Kubernetes
        has no way to signal an exec'd process; kwok and kubelets leave an idle shell running), so a shell still
        running is first asked to leave as a terminal would: interrupt, clear the line, end of input."""
        self._stopping.set()
        if self._ws is not None:
            with contextlib.suppress(WebSocketException, OSError, AttributeError), self._write_lock:
                if self._ws.is_open():
                    for keys in HANGUP:  # ^C flushes what the terminal holds: the rest goes after a pause
                        self._ws.write_stdin(keys)
                        time.sleep(HANGUP_SECONDS)  # and before the stream is torn down
            with contextlib.suppress(WebSocketException, OSError):
                self._ws.close()
        if self._thread is not None:
            self._thread.join(timeout=3)
        self._api.close()
