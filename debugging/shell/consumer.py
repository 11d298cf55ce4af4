"""The pod shell's websocket: the browser's terminal (or ``pincompute exec -it``) to a pod exec with a TTY.

It accepts first and then authorizes, so a refusal can carry a status message and a 44xx close code the terminal
shows (4400 malformed path or ``?shell=``, 4401 no session, 4403 not allowed, 4404 no such pod or container, 4429
too many open sockets). ``socketbase.PolicedConsumer`` audits refusals, admits under the per-user cap and re-checks
authorization while the socket is open; a shell also closes after ``DEBUG_SHELL_IDLE_SECONDS`` without traffic or
``DEBUG_SHELL_MAX_SECONDS`` in all (4408, a notice first); input counts as traffic only while the shell answers
(output within the idle time), so typing into a shell whose apiserver hung does not hold it open. A shell whose exec
connection broke or stopped answering its keepalive pings (``kubeexec.keepalive``) closes 4502 naming the cluster,
status "error", as a log stream does; 1000 is kept for a shell that ended (its exit status in the message).

A shell is one of a fixed list (``?shell=``, ``shell.commands``) and is recorded when its project says so
(``shell.recording``). The live logs' websockets are ``logs.consumer`` and ``logs.workload_consumer``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from kubernetes.config.config_exception import ConfigException

from base.errors import ServiceError
from clusters.runtime import api_for
from debugging import services
from debugging.authz import PodRef, resolve_pod
from debugging.kubeexec import ExecError, ExecResult, ExecSession, refusal
from debugging.models import SessionKind
from debugging.policy import limits
from debugging.shell import recording
from debugging.shell.commands import shell_command
from debugging.socketbase import PolicedConsumer

MAX_STDIN_CHARS = 64 * 1024
TOO_MUCH_INPUT = (
    f"Input not sent: one message may hold at most {MAX_STDIN_CHARS} characters (the browser's terminal and the CLI "
    "send input in smaller pieces)."
)
TIMEOUT_CLOSE = 4408


class ExecConsumer(PolicedConsumer):
    """Browser terminal <-> pod exec (``kubeexec``, on this event loop). Output is never dropped: the pump awaits
    each send to the browser before it reads the exec again, so a slow browser pauses the pod's output.
    A keystroke goes straight to the exec websocket from ``receive_json``: Channels hands the consumer one message
    at a time, so keystrokes stay in order and wait for any re-check of access that runs meanwhile."""

    kind = SessionKind.SHELL
    ref: PodRef | None = None
    session: ExecSession | None = None
    recorder: recording.Recorder | None = None

    async def connect(self) -> None:
        await self.accept()
        self.ref, self.session, self.pump, self.timer = None, None, None, None
        self.started = self.last_activity = self.last_output = time.monotonic()
        if not await self.names_ok():
            return
        kw = self.kwargs()
        try:
            shell, command = shell_command(
                parse_qs(self.scope.get("query_string", b"").decode("latin1")).get("shell", [None])[-1]
            )
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
            detail=f"shell={shell}",
            recorded=ref.project.record_shells,
        )
        if not admitted:
            return
        try:
            api = await database_sync_to_async(api_for)(ref.cluster)
            session = ExecSession(api, ref.namespace, ref.name, container, command)
            await session.open()
        except (*ExecError, ConfigException) as exc:
            message = f"Could not start a shell: {refusal(exc)}"
            await self.end(f"could not start: {refusal(exc)}", 4502)
            await self.status("error", message)
            await self.close_with(4502, message)
            return
        self.session = session
        if ref.project.record_shells:
            self.recorder = recording.Recorder(title=f"{ref.cluster.name}/{ref.namespace}/{ref.name}/{container}")
        await database_sync_to_async(services.record_shell_opened)(
            ref,
            container,
            actor=self.scope.get("user"),
            session=self.session_id,
            shell=shell,
            recorded=bool(self.recorder),
        )
        await self.status("connected", f"{ref.name}/{container} on {ref.cluster.name}")
        if self.recorder is not None:  # before any output: the pump starts below
            await self.send_json(
                {"type": "notice", "message": f"This shell is recorded ({ref.project.name}'s policy)."}
            )
        self.pump = asyncio.create_task(self._pump())
        self.timer = asyncio.create_task(self._watch_time())

    def bytes_out(self) -> int:
        return self.session.bytes_out if self.session is not None else 0

    async def _pump(self) -> None:
        assert self.session is not None
        async for item in self.session.output():
            if isinstance(item, ExecResult):
                if item.failure is not None:  # the apiserver broke or hung: a failure (4502), never 1000
                    assert self.ref is not None
                    message = f"Shell ended: {item.failure.message(self.ref.cluster.name).rstrip('.')}."
                    await self.end(item.reason, item.failure.code)
                    await self.status("error", message)
                    await self.close_with(item.failure.code, message)
                    return
                reason = item.reason if item.exit_code is None else f"exit {item.exit_code}"
                await self.end(reason, 1000)  # audit first: the close below may wait for the client's TCP close
                await self.status("closed", f"Shell ended ({reason}).")
                await self.close_with(1000, f"Shell ended ({reason}).")
                return
            self.last_activity = self.last_output = time.monotonic()
            if self.recorder is not None:
                self.recorder.output(item)
            await self.send_json({"type": "stdout", "data": item})

    async def _watch_time(self) -> None:
        """Idle timeout and maximum length: a notice ``warn_seconds`` before, then close 4408. It wakes only when a
        notice or the close may be due (activity meanwhile moved the deadline: it looks again and sleeps on), not
        every second: 500 idle shells were 500 wake-ups a second on the loop that carries the keystrokes."""
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
                await self.close_with(TIMEOUT_CLOSE, message)
                return
            if now >= deadline - lim.warn_seconds and warned_for != deadline:
                warned_for = deadline
                left = max(1, round(deadline - now))
                await self.send_json({"type": "notice", "message": f"This shell closes in {left} s ({why})."})
            target = deadline - lim.warn_seconds if now < deadline - lim.warn_seconds else deadline
            await asyncio.sleep(max(0.01, target - now))

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if self.session is None or self.ended or not isinstance(content, dict):
            return
        if content.get("type") == "stdin" and isinstance(content.get("data"), str):
            if len(content["data"]) > MAX_STDIN_CHARS:  # refused whole: running the first part of a paste is worse
                await self.send_json({"type": "notice", "message": TOO_MUCH_INPUT})
                return
            # a lone surrogate ("\ud800" in the JSON) is no character a terminal can send: replaced, as a decoder would
            data = content["data"].encode("utf-8", "replace").decode("utf-8")
            self.bytes_in += len(data.encode())
            now = time.monotonic()
            if now - self.last_output < limits().idle_seconds:  # typing into a shell that answers nothing (its
                self.last_activity = now  # apiserver hung) is no activity: it must not hold the shell open
            if await self.still_allowed():  # the access epoch: a change committed before this keystroke wins
                await self.session.write_stdin(data)
            return
        if not await self.still_allowed():  # a change committed before this message wins over it
            return
        if content.get("type") == "resize":
            try:
                cols, rows = int(content["cols"]), int(content["rows"])
            except (KeyError, TypeError, ValueError, OverflowError):
                return
            if 0 < cols <= 1000 and 0 < rows <= 1000:
                if self.recorder is not None:
                    self.recorder.resize(cols, rows)
                await self.session.resize(cols, rows)

    async def stop_streams(self) -> None:
        current = asyncio.current_task()
        for task in (self.pump, self.timer):
            if task is not None and task is not current:
                task.cancel()
        if self.session is not None:
            await self.session.close()

    async def periodic_hook(self) -> None:
        await self._save_recording()

    async def _save_recording(self) -> None:
        if self.recorder is not None and self.session_id is not None:
            await database_sync_to_async(services.save_recording)(self.session_id, self.recorder)

    async def ended_hook(self, reason: str) -> None:
        await self._save_recording()
        if self.session is not None:
            assert self.ref is not None
            await database_sync_to_async(services.record_shell_closed)(
                self.ref,
                self.kwargs()["container"],
                actor=self.scope.get("user"),
                session=self.session_id,
                bytes_in=self.bytes_in,
                bytes_out=self.session.bytes_out,
                duration_s=round(time.monotonic() - self.started, 3),
                reason=reason,
            )
