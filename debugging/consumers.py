"""Websocket consumers: a pod shell (exec, TTY) and live pod logs (one pod or a label selector).

Both accept first and then authorize, so a refusal can carry a status message and a 44xx close code
the terminal / log widgets show (4400 malformed path or option, 4401 no session, 4403 not allowed, 4404 no
such pod or container, 4429 too many open sockets). ``socketbase.PolicedConsumer`` audits refusals, admits
under the per-user cap and re-checks authorization while the socket is open; a shell also closes after
``DEBUG_SHELL_IDLE_SECONDS`` without traffic or ``DEBUG_SHELL_MAX_SECONDS`` in all (4408, a notice first).
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from kubernetes.client.rest import ApiException
from kubernetes.config.config_exception import ConfigException
from websocket import WebSocketException

from base import audit
from base.errors import ServiceError
from clusters.runtime import api_for
from debugging.authz import MAX_STREAM_PODS, PodRef, resolve_pod, resolve_selector
from debugging.logoptions import LogOptions, parse_log_options, resume_window
from debugging.models import SessionKind
from debugging.policy import limits
from debugging.socketbase import PolicedConsumer
from debugging.streams import LOG_TAIL_LINES, ExecResult, ExecSession, LineBuffer, LogFollower, RawLine, ts_micros

BATCH_SECONDS = 0.05
RESUME_WAIT_SECONDS = 0.3
MAX_STDIN_CHARS = 64 * 1024
MULTI_POD_TAIL_LINES = 50
TIMEOUT_CLOSE = 4408


class ExecConsumer(PolicedConsumer):
    """Browser terminal <-> pod exec. Output is never dropped: a slow browser pauses the reader."""

    kind = SessionKind.SHELL
    ref: PodRef | None = None
    session: ExecSession | None = None

    async def connect(self) -> None:
        await self.accept()
        self.ref, self.session, self.pump, self.timer = None, None, None, None
        self.started = self.last_activity = time.monotonic()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="exec-write")  # keeps keystroke order
        if not await self.names_ok():
            return
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
            await self.refuse(refused, cluster=kw["cluster"])
            return
        ref, container = self.ref, kw["container"]
        admitted = await self.admit(
            project=ref.project,
            cluster=ref.cluster.name,
            namespace=ref.namespace,
            pod=ref.name,
            container=container,
            need_exec=True,
            sidecar=container in ref.sidecars,
        )
        if not admitted:
            return
        loop = asyncio.get_running_loop()
        try:
            api = await database_sync_to_async(api_for)(ref.cluster)
            session = ExecSession(api, ref.namespace, ref.name, container, loop)
            await loop.run_in_executor(self.executor, session.open)
        except (ApiException, WebSocketException, OSError, ConfigException) as exc:
            await self.end(f"could not start: {exc}", 4502)
            await self.status("error", f"Could not start a shell: {getattr(exc, 'reason', None) or exc}")
            await self.close(code=4502)
            return
        self.session = session
        await self._audit("shell.open", {"session": self.session_id})
        session.start_reader()
        self.pump = asyncio.create_task(self._pump())
        self.timer = asyncio.create_task(self._watch_time())
        await self.status("connected", f"{ref.name}/{container} on {ref.cluster.name}")

    def bytes_out(self) -> int:
        return self.session.bytes_out if self.session is not None else 0

    async def _pump(self) -> None:
        assert self.session is not None
        while True:
            item = await self.session.output.get()
            if isinstance(item, ExecResult):
                reason = item.reason if item.exit_code is None else f"exit {item.exit_code}"
                await self.end(reason, 1000)  # audit first: the close below may wait for the client's TCP close
                await self.status("closed", f"Shell ended ({reason}).")
                await self.close(code=1000)
                return
            self.last_activity = time.monotonic()
            await self.send_json({"type": "stdout", "data": item})

    async def _watch_time(self) -> None:
        """Idle timeout and maximum length: a notice ``warn_seconds`` before, then close 4408."""
        warned_for = 0.0
        while not self.ended:
            lim = limits()
            deadline, why = min(
                (self.last_activity + lim.idle_seconds, f"idle for {lim.idle_seconds} s"),
                (self.started + lim.max_seconds, f"open for {lim.max_seconds} s, the maximum"),
            )
            now = time.monotonic()
            if now >= deadline:
                message = f"Shell closed: {why} (DEBUG_SHELL_IDLE_SECONDS / DEBUG_SHELL_MAX_SECONDS)."
                await self.end(f"timeout: {why}", TIMEOUT_CLOSE)
                await self.status("closed", message)
                await self.close(code=TIMEOUT_CLOSE)
                return
            if now >= deadline - lim.warn_seconds and warned_for != deadline:
                warned_for = deadline
                left = max(1, round(deadline - now))
                await self.send_json({"type": "notice", "message": f"This shell closes in {left} s ({why})."})
            target = deadline - lim.warn_seconds if now < deadline - lim.warn_seconds else deadline
            await asyncio.sleep(min(1.0, max(0.01, target - now)))

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if self.session is None or self.ended or not isinstance(content, dict):
            return
        if not await self.still_allowed():  # a change committed before this keystroke wins over it
            return
        loop = asyncio.get_running_loop()
        if content.get("type") == "stdin" and isinstance(content.get("data"), str):
            data = content["data"][:MAX_STDIN_CHARS]
            self.bytes_in += len(data.encode())
            self.last_activity = time.monotonic()
            await loop.run_in_executor(self.executor, self.session.write_stdin, data)
        elif content.get("type") == "resize":
            try:
                cols, rows = int(content["cols"]), int(content["rows"])
            except (KeyError, TypeError, ValueError):
                return
            if 0 < cols <= 1000 and 0 < rows <= 1000:
                await loop.run_in_executor(self.executor, self.session.resize, cols, rows)

    async def stop_streams(self) -> None:
        current = asyncio.current_task()
        for task in (self.pump, self.timer):
            if task is not None and task is not current:
                task.cancel()
        if self.session is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.session.close)
        self.executor.shutdown(wait=False)

    async def ended_hook(self, reason: str) -> None:
        if self.session is not None:
            await self._audit(
                "shell.close",
                {
                    "session": self.session_id,
                    "bytes_in": self.bytes_in,
                    "bytes_out": self.session.bytes_out,
                    "duration_s": round(time.monotonic() - self.started, 3),
                    "reason": reason,
                },
            )

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


class LogConsumer(PolicedConsumer):
    """Live logs of one container or of every pod matching a selector, batched every ~50 ms.

    seq is a per-stream counter that also encodes time: seq = max(previous + 1, line timestamp in µs).
    It increases strictly, and a NEW connection can honour {"type":"resume","after_seq":N}: the readers
    re-read with since_seconds covering N (bounded by ``logoptions.resume_window``) and skip every line
    stamped at or before N, and numbering continues above N, so the widget (which drops seq <= last seen)
    shows the gap and no duplicates. The server waits up to RESUME_WAIT_SECONDS after accept for a resume
    before starting the readers. Options (tail, since, timestamps, previous, follow): ``logoptions``.
    """

    kind = SessionKind.LOGS

    async def connect(self) -> None:
        await self.accept()
        self.followers: list[Any] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.seq, self.skip_until, self.sent_bytes, self.ended_streams = 0, 0, 0, 0
        self.resume: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        if not await self.names_ok():
            return
        kw, user = self.kwargs(), self.scope.get("user")
        query, raw = self.scope.get("query_string", b"").decode("latin1"), ""
        try:
            self.options: LogOptions = parse_log_options(query)
            if "pod" in kw:
                ref = await database_sync_to_async(resolve_pod)(
                    user, kw["cluster"], kw["namespace"], kw["pod"], container=kw["container"]
                )
                self.targets, self.project, self.cluster = [(ref.name, kw["container"])], ref.project, ref.cluster
                target, pod, container = f"{ref.namespace}/{ref.name}/{kw['container']}", ref.name, kw["container"]
            else:
                raw = parse_qs(query).get("selector", [""])[0]
                sel = await database_sync_to_async(resolve_selector)(user, kw["cluster"], kw["namespace"], raw)
                self.targets = [(p["metadata"]["name"], c["name"]) for p in sel.pods for c in p["spec"]["containers"]][
                    :MAX_STREAM_PODS
                ]
                self.project, self.cluster = sel.project, sel.cluster
                target, pod, container = f"{sel.namespace}?{raw}", f"?{raw}"[:253], "*"
        except ServiceError as refused:
            await self.refuse(refused, cluster=kw["cluster"])
            return
        admitted = await self.admit(
            project=self.project, cluster=self.cluster.name, namespace=kw["namespace"], pod=pod, container=container
        )
        if not admitted:
            return
        if not self.targets:
            await self.status("connected", f"No running pods match {raw}.")
        await database_sync_to_async(audit.record)(
            "logs.open",
            actor=user,
            target_kind="pod",
            target_name=target,
            project=self.project.name,
            cluster=self.cluster.name,
            after={"streams": len(self.targets), "session": self.session_id},
            summary=f"logs of {target}",
        )
        self.tasks.append(asyncio.create_task(self._start()))

    def bytes_out(self) -> int:
        return self.sent_bytes

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
        self.buffer = LineBuffer(loop)
        try:
            api = await database_sync_to_async(api_for)(self.cluster)
        except ConfigException as exc:
            await self.end(f"could not start: {exc}", 4502)
            await self.status("error", f"Could not read logs: {exc}")
            await self.close(code=4502)
            return
        opts = self.options
        since, tail = opts.since_seconds, opts.tail
        if tail is None and since is None:
            tail = LOG_TAIL_LINES if len(self.targets) == 1 else MULTI_POD_TAIL_LINES
        if after:
            self.skip_until, since, tail = resume_window(after, time.time(), len(self.targets))
            self.seq = self.skip_until
        for pod, container in self.targets:
            follower = LogFollower(
                api,
                self.kwargs()["namespace"],
                pod,
                container,
                self.buffer,
                tail_lines=tail,
                since_seconds=since,
                on_end=self._ended_from_thread,
                **opts.follower_kwargs(),
            )
            self.followers.append(follower)
            follower.start()
        self.tasks.append(asyncio.create_task(self._send_batches()))
        if self.targets:
            await self.status(
                "connected",
                f"Following {len(self.targets)} container log(s)" + (f", resumed after {after}" if after else ""),
            )

    def _ended_from_thread(self, pod: str, container: str, reason: str) -> None:
        self.buffer._loop.call_soon_threadsafe(
            lambda: self.tasks.append(asyncio.create_task(self._ended(pod, container, reason)))
        )

    async def _ended(self, pod: str, container: str, reason: str) -> None:
        await asyncio.sleep(BATCH_SECONDS * 2)  # let the last lines go out first
        self.ended_streams += 1
        if self.ended:
            return
        if len(self.targets) == 1 or self.ended_streams >= len(self.targets):
            what = (
                f"Log of {pod}/{container} {reason}"
                if len(self.targets) == 1
                else f"All {len(self.targets)} logs ended"
            )
            await self._flush()
            await self.end(f"log {reason}", 1000)
            await self.status("closed", f"{what}.")
            await self.close(code=1000)
        else:
            await self.status("connected", f"Log of {pod}/{container} {reason}.")

    async def _send_batches(self) -> None:
        while True:
            await self.buffer.ready.wait()
            await asyncio.sleep(BATCH_SECONDS)
            await self._flush()

    async def _flush(self) -> None:
        lines, dropped = self.buffer.drain()
        if dropped:
            await self.status("connected", f"{dropped} lines dropped (client too slow)")
        out = [
            self._message(line)
            for line in sorted(lines, key=lambda raw: raw.ts)
            if not self.skip_until or ts_micros(line.ts) > self.skip_until
        ]
        if out:
            self.sent_bytes += sum(len(m["text"]) for m in out)
            await self.send_json({"type": "lines", "lines": out})

    def _message(self, line: RawLine) -> dict[str, Any]:
        self.seq = max(self.seq + 1, ts_micros(line.ts))
        return {
            "type": "line",
            "seq": self.seq,
            "pod": line.pod,
            "container": line.container,
            "ts": line.ts,
            "text": f"{line.ts} {line.text}" if self.options.timestamps else line.text,
        }

    async def stop_streams(self) -> None:
        current = asyncio.current_task()
        for task in self.tasks:
            if task is not current:
                task.cancel()
        for follower in self.followers:
            follower.stop()
