"""Websocket consumers: a pod shell (exec, TTY) and live pod logs (one pod or a label selector).

Both accept first and then authorize, so a refusal can carry a status message and a 44xx close code
the terminal / log widgets show (4401 no session, 4403 not allowed, 4404 no such pod or container).
"""

from __future__ import annotations

import asyncio
import math
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from kubernetes.client.rest import ApiException
from websocket import WebSocketException

from base import audit
from base.errors import ServiceError, close_code
from clusters.runtime import api_for
from debugging.authz import MAX_STREAM_PODS, PodRef, resolve_pod, resolve_selector
from debugging.streams import LOG_TAIL_LINES, ExecResult, ExecSession, LineBuffer, LogFollower, RawLine, ts_micros

BATCH_SECONDS = 0.05
RESUME_WAIT_SECONDS = 0.3
MAX_STDIN_CHARS = 64 * 1024
MULTI_POD_TAIL_LINES = 50


class _Base(AsyncJsonWebsocketConsumer):
    async def status(self, state: str, message: str) -> None:
        await self.send_json({"type": "status", "state": state, "message": message})

    async def refuse(self, refused: ServiceError) -> None:
        await self.status("error", refused.message)
        await self.close(code=close_code(refused))

    def kwargs(self) -> dict[str, str]:
        return dict(self.scope["url_route"]["kwargs"])


class ExecConsumer(_Base):
    """Browser terminal <-> pod exec. Output is never dropped: a slow browser pauses the reader."""

    ref: PodRef | None = None
    session: ExecSession | None = None

    async def connect(self) -> None:
        await self.accept()
        self.ref, self.session, self.pump = None, None, None
        self.bytes_in, self.started, self.reason, self.finished = 0, time.monotonic(), "client closed", False
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="exec-write")  # keeps keystroke order
        kw = self.kwargs()
        try:
            self.ref = await database_sync_to_async(resolve_pod)(
                self.scope.get("user"),
                kw["cluster"],
                kw["namespace"],
                kw["pod"],
                container=kw["container"],
                need_exec=True,
            )
        except ServiceError as refused:
            await self.refuse(refused)
            return
        loop = asyncio.get_running_loop()
        api = await database_sync_to_async(api_for)(self.ref.cluster)
        session = ExecSession(api, self.ref.namespace, self.ref.name, kw["container"], loop)
        try:
            await loop.run_in_executor(self.executor, session.open)
        except (ApiException, WebSocketException, OSError) as exc:
            await self.status("error", f"Could not start a shell: {getattr(exc, 'reason', None) or exc}")
            await self.close(code=4502)
            return
        self.session = session
        await self._audit("shell.open", None)
        session.start_reader()
        self.pump = asyncio.create_task(self._pump())
        await self.status("connected", f"{self.ref.name}/{kw['container']} on {self.ref.cluster.name}")

    async def _pump(self) -> None:
        assert self.session is not None
        while True:
            item = await self.session.output.get()
            if isinstance(item, ExecResult):
                self.reason = item.reason if item.exit_code is None else f"exit {item.exit_code}"
                await self.status("closed", f"Shell ended ({self.reason}).")
                await self.close(code=1000)
                await self._finish()
                return
            await self.send_json({"type": "stdout", "data": item})

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if self.session is None or not isinstance(content, dict):
            return
        loop = asyncio.get_running_loop()
        if content.get("type") == "stdin" and isinstance(content.get("data"), str):
            data = content["data"][:MAX_STDIN_CHARS]
            self.bytes_in += len(data.encode())
            await loop.run_in_executor(self.executor, self.session.write_stdin, data)
        elif content.get("type") == "resize":
            try:
                cols, rows = int(content["cols"]), int(content["rows"])
            except (KeyError, TypeError, ValueError):
                return
            if 0 < cols <= 1000 and 0 < rows <= 1000:
                await loop.run_in_executor(self.executor, self.session.resize, cols, rows)

    async def disconnect(self, code: int) -> None:
        await self._finish()

    async def _finish(self) -> None:
        """Close the exec once, stop the pump and write shell.close (bytes both ways, duration, reason)."""
        if self.finished:
            return
        self.finished = True
        if self.pump is not None and self.pump is not asyncio.current_task():
            self.pump.cancel()
        if self.session is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.session.close)
            await self._audit(
                "shell.close",
                {
                    "bytes_in": self.bytes_in,
                    "bytes_out": self.session.bytes_out,
                    "duration_s": round(time.monotonic() - self.started, 3),
                    "reason": self.reason,
                },
            )
        self.executor.shutdown(wait=False)

    @database_sync_to_async
    def _audit(self, action: str, after: dict[str, Any] | None) -> None:
        ref, kw = self.ref, self.kwargs()
        assert ref is not None
        audit.record(
            action,
            actor=self.scope.get("user"),
            target_kind="pod",
            target_name=f"{ref.namespace}/{ref.name}/{kw['container']}",
            project=ref.project.name,
            cluster=ref.cluster.name,
            after=after,
            summary=f"{action} {ref.name}/{kw['container']}",
        )


class LogConsumer(_Base):
    """Live logs of one container or of every pod matching a selector, batched every ~50 ms.

    seq is a per-stream counter that also encodes time: seq = max(previous + 1, line timestamp in µs).
    It increases strictly, and a NEW connection can honour {"type":"resume","after_seq":N}: the readers
    re-read with since_seconds covering N and skip every line stamped at or before N, and numbering
    continues above N, so the widget (which drops seq <= last seen) shows the gap and no duplicates.
    The server waits up to RESUME_WAIT_SECONDS after accept for a resume before starting the readers.
    """

    async def connect(self) -> None:
        await self.accept()
        self.followers: list[LogFollower] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.seq, self.skip_until = 0, 0
        self.resume: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        kw, user = self.kwargs(), self.scope.get("user")
        try:
            if "pod" in kw:
                ref = await database_sync_to_async(resolve_pod)(
                    user, kw["cluster"], kw["namespace"], kw["pod"], container=kw["container"]
                )
                self.targets, self.project, self.cluster = [(ref.name, kw["container"])], ref.project, ref.cluster
                target = f"{ref.namespace}/{ref.name}/{kw['container']}"
            else:
                raw = parse_qs(self.scope.get("query_string", b"").decode()).get("selector", [""])[0]
                sel = await database_sync_to_async(resolve_selector)(user, kw["cluster"], kw["namespace"], raw)
                self.targets = [(p["metadata"]["name"], c["name"]) for p in sel.pods for c in p["spec"]["containers"]][
                    :MAX_STREAM_PODS
                ]
                self.project, self.cluster = sel.project, sel.cluster
                target = f"{sel.namespace}?{raw}"
                if not self.targets:
                    await self.status("connected", f"No running pods match {raw}.")
        except ServiceError as refused:
            await self.refuse(refused)
            return
        await database_sync_to_async(audit.record)(
            "logs.open",
            actor=user,
            target_kind="pod",
            target_name=target,
            project=self.project.name,
            cluster=self.cluster.name,
            after={"streams": len(self.targets)},
            summary=f"logs of {target}",
        )
        self.tasks.append(asyncio.create_task(self._start()))

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "resume" and not self.resume.done():
            try:
                self.resume.set_result(max(0, int(content.get("after_seq", 0))))
            except (TypeError, ValueError):
                self.resume.set_result(0)

    async def _start(self) -> None:
        try:
            after = await asyncio.wait_for(asyncio.shield(self.resume), RESUME_WAIT_SECONDS)
        except TimeoutError:
            after = 0
        loop = asyncio.get_running_loop()
        api = await database_sync_to_async(api_for)(self.cluster)
        self.buffer = LineBuffer(loop)
        since = None
        if after:
            self.seq = self.skip_until = after
            since = max(1, math.ceil(time.time() - after / 1_000_000) + 2)
        tail = LOG_TAIL_LINES if len(self.targets) == 1 else MULTI_POD_TAIL_LINES
        for pod, container in self.targets:
            follower = LogFollower(
                api,
                self.cluster_ns(),
                pod,
                container,
                self.buffer,
                tail_lines=tail,
                since_seconds=since,
                on_end=self._ended_from_thread,
            )
            self.followers.append(follower)
            follower.start()
        self.tasks.append(asyncio.create_task(self._send_batches()))
        if self.targets:
            await self.status(
                "connected",
                f"Following {len(self.targets)} container log(s)" + (f", resumed after {after}" if after else ""),
            )

    def cluster_ns(self) -> str:
        return self.kwargs()["namespace"]

    def _ended_from_thread(self, pod: str, container: str, reason: str) -> None:
        self.buffer._loop.call_soon_threadsafe(
            lambda: self.tasks.append(asyncio.create_task(self._ended(pod, container, reason)))
        )

    async def _ended(self, pod: str, container: str, reason: str) -> None:
        await asyncio.sleep(BATCH_SECONDS * 2)  # let the last lines go out first
        if len(self.targets) == 1:
            await self.status("closed", f"Log of {pod}/{container} {reason}.")
            await self.close(code=1000)
        else:
            await self.status("connected", f"Log of {pod}/{container} {reason}.")

    async def _send_batches(self) -> None:
        while True:
            await self.buffer.ready.wait()
            await asyncio.sleep(BATCH_SECONDS)
            lines, dropped = self.buffer.drain()
            if dropped:
                await self.status("connected", f"{dropped} lines dropped (client too slow)")
            out = [
                self._message(line)
                for line in sorted(lines, key=lambda raw: raw.ts)
                if not self.skip_until or ts_micros(line.ts) > self.skip_until
            ]
            if out:
                await self.send_json({"type": "lines", "lines": out})

    def _message(self, line: RawLine) -> dict[str, Any]:
        self.seq = max(self.seq + 1, ts_micros(line.ts))
        return {
            "type": "line",
            "seq": self.seq,
            "pod": line.pod,
            "container": line.container,
            "ts": line.ts,
            "text": line.text,
        }

    async def disconnect(self, code: int) -> None:
        for task in getattr(self, "tasks", []):
            task.cancel()
        followers = getattr(self, "followers", [])
        if followers:
            await asyncio.get_running_loop().run_in_executor(None, lambda: [f.stop() for f in followers])
