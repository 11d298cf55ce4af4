"""Console log follows handed to asyncio boundedly (a file inside a container is followed over exec: ``logs.files``).

Logs are plain chunked HTTP responses, read by an async client on the event loop (no thread per stream).
Lines go through `LineBuffer`, a deque with a maximum length: when the browser is slower than the pod the oldest
lines are dropped and counted (a log viewer may lose lines, it must not grow memory).

A follow that fails says why with a ``upstream.StreamFailure`` (its ``on_end``'s last argument): the socket closes
with its code, never 1000, so a client (the CLI's exit status) can tell a failure from the end of a log.

A hung apiserver (a stopped process: TCP up, nothing answers) must not leave follows open and silent: a follow
may legitimately be silent for hours, so no read deadline tells. Instead the response headers have a deadline
(``DEBUG_LOG_HEADERS_SECONDS``), and while follows of an apiserver are open in this process one ``Liveness`` task
for it asks ``GET /version`` (no etcd behind it) every ``DEBUG_LOG_LIVENESS_SECONDS``, with a timeout of
``DEBUG_LOG_LIVENESS_TIMEOUT_SECONDS``; after ``LIVENESS_MISSES`` unanswered probes in a row every follow of it
fails with 4502 ("... stopped answering"). An answer of any status is a sign of life; a refused connection is left
to the follows' own connections to tell.
"""

from __future__ import annotations

import asyncio
import calendar
import functools
import json
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
from kubernetes import client as k8s

from debugging.upstream import StreamFailure, ended_reason, hung, lost, refused, unreachable
from pincompute.kube.podexec import tls_context

LOG_TAIL_LINES = 200
LOG_BUFFER_LINES = 2000
LIVENESS_SECONDS, LIVENESS_TIMEOUT_SECONDS, LIVENESS_MISSES = 15.0, 5.0, 2
HEADERS_SECONDS = 15.0


def setting(name: str, default: float) -> float:
    from django.conf import settings

    return float(getattr(settings, name, default))


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


OnEnd = Callable[[str, str, str, StreamFailure | None], Any]


def restarted(pod: dict[str, Any], container: str) -> bool:
    """Whether ``container`` has a previous instance to read (its restart count, which the cache keeps)."""
    status = pod.get("status") or {}
    for key in ("containerStatuses", "initContainerStatuses"):
        for found in status.get(key) or []:
            if isinstance(found, dict) and found.get("name") == container:
                return bool(found.get("restartCount"))
    return False


def log_http_client(api: k8s.ApiClient) -> httpx.AsyncClient:
    """An async HTTP client with the cluster ApiClient's address, TLS and credentials (same configuration)."""
    cfg = api.configuration
    headers = {a["key"]: a["value"] for a in cfg.auth_settings().values() if a.get("in") == "header" and a["value"]}
    return httpx.AsyncClient(
        base_url=cfg.host,
        verify=tls_context(cfg),
        headers=headers,
        timeout=httpx.Timeout(10.0, read=None),
    )


class Liveness:
    """Whether one apiserver still answers, for every follow of it open on this event loop (``liveness_for``):
    a task that runs only while follows are registered."""

    def __init__(self, api: k8s.ApiClient) -> None:
        self.api = api
        self.followers: set[LogFollower] = set()
        self._task: asyncio.Task[None] | None = None

    def add(self, follower: LogFollower) -> None:
        self.followers.add(follower)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="logs-liveness")

    def discard(self, follower: LogFollower) -> None:
        self.followers.discard(follower)

    async def _run(self) -> None:
        misses = 0
        async with log_http_client(self.api) as http:
            while self.followers:
                await asyncio.sleep(setting("DEBUG_LOG_LIVENESS_SECONDS", LIVENESS_SECONDS))
                if not self.followers:
                    return
                timeout = setting("DEBUG_LOG_LIVENESS_TIMEOUT_SECONDS", LIVENESS_TIMEOUT_SECONDS)
                try:
                    await http.get("/version", timeout=timeout)
                    misses = 0
                    continue
                except httpx.TimeoutException:
                    misses += 1
                except (httpx.HTTPError, OSError, ssl.SSLError):
                    misses = 0  # refused or broken: the follows' own connections say so
                    continue
                if misses >= LIVENESS_MISSES:
                    misses = 0
                    failure = hung(f"no answer to {LIVENESS_MISSES} probes in a row ({timeout:g} s each)")
                    for follower in list(self.followers):
                        follower.abandon(failure)
                    self.followers.clear()


_liveness: dict[tuple[int, str, str], Liveness] = {}


def liveness_for(api: k8s.ApiClient) -> Liveness:
    """The ``Liveness`` of the apiserver ``api`` talks to, shared on this event loop (by address and credentials)."""
    cfg = api.configuration
    key = (id(asyncio.get_running_loop()), cfg.host, json.dumps(cfg.auth_settings(), sort_keys=True, default=str))
    for stale in [k for k, v in _liveness.items() if not v.followers and k != key]:
        del _liveness[stale]  # idle ones: a loop that went away, a cluster no longer followed
    found = _liveness.get(key)
    if found is None:
        found = _liveness[key] = Liveness(api)
    return found


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
        on_end: OnEnd | None = None,
        previous: bool = False,
        follow: bool = True,
        cluster: str = "",
        skip_through: int = 0,
    ) -> None:
        self.skip_through = skip_through  # lines stamped at or before it (µs) are not passed on
        self.api, self.namespace, self.pod, self.container, self.cluster = api, namespace, pod, container, cluster
        self.sink, self.tail_lines, self.since_seconds, self.on_end = sink, tail_lines, since_seconds, on_end
        self.previous, self.follow = previous, follow
        self._task: asyncio.Task[None] | None = None
        self._abandoned: StreamFailure | None = None
        self._stopped = False
        self.opened = False  # the apiserver answered 200: lines may come
        self.on_open: Callable[[], Any] | None = None
        self.last_ts = ""  # the timestamp of the last line read

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
        liveness = liveness_for(self.api)
        liveness.add(self)
        try:
            failure = await self._read()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self._abandoned is None or self._stopped or task is None:
                raise
            task.uncancel()  # cancelled by ``abandon``: report it as a failure
            failure = self._abandoned
        finally:
            liveness.discard(self)
        if self.on_end is not None:
            self.on_end(self.pod, self.container, ended_reason(failure), failure)

    async def _read(self) -> StreamFailure | None:
        """Read the log to its end: ``None``, else why it failed."""
        path, streaming = f"/api/v1/namespaces/{self.namespace}/pods/{self.pod}/log", False
        deadline = setting("DEBUG_LOG_HEADERS_SECONDS", HEADERS_SECONDS)
        try:
            async with log_http_client(self.api) as http:
                request = http.build_request("GET", path, params=self.params())
                try:
                    async with asyncio.timeout(deadline):  # the headers: the body may be silent for hours
                        resp = await http.send(request, stream=True)
                except TimeoutError:
                    return unreachable(f"no answer within {deadline:g} s")
                try:
                    if resp.status_code >= 400:
                        body = (await resp.aread())[:300].decode("utf-8", "replace")
                        return refused(resp.status_code, _status_message(body), previous=self.previous)
                    streaming, pending, self.opened = True, b"", True
                    if self.on_open is not None:
                        self.on_open()
                    async for chunk in resp.aiter_bytes():
                        pending += chunk
                        *complete, pending = pending.split(b"\n")
                        for raw in complete:
                            self._emit(raw)
                    if pending:
                        self._emit(pending)
                finally:
                    await resp.aclose()
        except asyncio.CancelledError:
            raise
        except (httpx.HTTPError, OSError, ssl.SSLError) as exc:
            return (lost if streaming else unreachable)(_why(exc))
        return None

    def _emit(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").rstrip("\r")
        ts, _, body = text.partition(" ")
        if self.skip_through and ts_micros(ts) <= self.skip_through:
            return  # read again after a failure: the client has it
        self.last_ts = ts
        self.sink.put(RawLine(self.pod, self.container, ts, body, self.cluster))

    def stop(self) -> None:
        """Cancels the task: the response is closed by its context managers."""
        self._stopped = True
        if self._task is not None:
            self._task.cancel()

    def abandon(self, failure: StreamFailure) -> None:
        """The apiserver stopped answering (``Liveness``): end the follow, reported as ``failure``."""
        if self._task is not None and not self._task.done() and not self._stopped:
            self._abandoned = failure
            self._task.cancel()


def _why(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__} ({text[:120]})" if text else type(exc).__name__


def _status_message(body: str) -> str:
    try:
        found = json.loads(body)
    except ValueError:
        return body.strip()
    return str(found.get("message", "")) if isinstance(found, dict) else body.strip()
