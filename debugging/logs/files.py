"""File-based logs: follow a file inside a container with ``tail -F`` over exec (``follow=0``: ``tail`` without
``-F``, which prints the last lines and exits, so the socket closes 1000 as a console log's does).

The path comes from the kind's declared ``log_files`` or is typed (``logs.options.valid_file_path``: absolute, plain
segments). It is handed to ``tail`` as one argv element of a fixed command, never through a shell, so nothing in
it is interpreted. ``-F`` keeps following across rotation and waits for a file that does not exist yet; what tail
says on stderr ("cannot open ...", "has been replaced") is passed on as a notice, not as a log line.

The exec is a ``kubeexec`` websocket read by an asyncio task (no thread per followed file; the per-user socket cap
bounds them). Each line is stamped with the time it arrived (a file has no timestamps the
server could trust), which also gives it its ``seq``.

A failure is reported as an ``upstream.StreamFailure`` (4502 apiserver unreachable or refusing, 4404 no such pod or
file), and so is a ``tail`` that exits non-zero (its last stderr line says why).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from kubernetes import client as k8s
from websockets.exceptions import InvalidStatus

from debugging.kubeexec import STDOUT, ExecError, ExecResult, ExecSession, refusal
from debugging.logs.streams import LineBuffer, OnEnd, RawLine
from debugging.upstream import NOT_THERE, UPSTREAM_FAILED, StreamFailure, ended_reason, lost, refused, unreachable
from pincompute.kinds import DEFAULT_LOG_FILES, KINDS
from pincompute.labels import KIND_LABEL

FILE_TAIL_LINES = 200


def declared_log_files(pod: dict[str, Any]) -> tuple[str, ...]:
    """The files the pod's kind declares (``KindInfo.log_files``); the default list for a pod of no known kind."""
    kind = ((pod.get("metadata") or {}).get("labels") or {}).get(KIND_LABEL, "")
    info = KINDS.get(kind)
    return info.log_files if info is not None else DEFAULT_LOG_FILES


def tail_command(path: str, lines: int, *, follow: bool = True) -> list[str]:
    """The fixed command: ``path`` is one argv element after ``--`` (no option, no shell)."""
    return ["tail", "-n", str(lines), *(["-F"] if follow else []), "--", path]


def open_failure(exc: BaseException) -> StreamFailure:
    """Why the exec could not be opened: the apiserver's answer when it gave one, else it was not reached."""
    if isinstance(exc, InvalidStatus):
        return refused(exc.response.status_code, refusal(exc).partition(" ")[2])
    return unreachable(refusal(exc))


def now_rfc3339() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class FileFollower:
    """``tail -F`` of one file in one container, pushing lines into a LineBuffer (the LogFollower interface)."""

    def __init__(
        self,
        api: k8s.ApiClient,
        namespace: str,
        pod: str,
        container: str,
        path: str,
        sink: LineBuffer,
        *,
        tail_lines: int | None = FILE_TAIL_LINES,
        follow: bool = True,
        on_end: OnEnd | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        command = tail_command(path, FILE_TAIL_LINES if tail_lines is None else tail_lines, follow=follow)
        self.session = ExecSession(api, namespace, pod, container, command, stdin=False, tty=False)
        self.pod, self.container, self.path = pod, container, path
        self.sink, self.on_end, self.on_notice = sink, on_end, on_notice
        self.last_notice = ""
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """From the event loop: the follow runs as a task of its own."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"filelog-{self.pod}")

    async def _run(self) -> None:
        failure: StreamFailure | None = None
        try:
            await self.session.open()
            failure = await self._follow()
        except ExecError as exc:
            failure = open_failure(exc)
        finally:
            await self.session.close(hangup=False)  # closing the exec ends tail
        if self.on_end is not None:
            self.on_end(self.pod, self.container, ended_reason(failure), failure)

    async def _follow(self) -> StreamFailure | None:
        """Pass tail's output on until it ends: ``None`` for a normal end, else why it failed."""
        pending = {STDOUT: ""}
        async for item in self.session.channels():
            if isinstance(item, ExecResult):
                return self._outcome(item)
            channel, text = item
            each = self._emit if channel == STDOUT else self._notice
            pending[channel] = self._lines(pending.get(channel, "") + text, each)
        return None

    def _outcome(self, result: ExecResult) -> StreamFailure | None:
        if result.failure is not None:
            return result.failure
        if result.reason != "exited":
            return lost(result.reason.removeprefix("error: "))
        if not result.exit_code:  # 0, or a runtime that did not say
            return None
        code = NOT_THERE if "No such file" in self.last_notice else UPSTREAM_FAILED
        return StreamFailure(code, f"tail exited {result.exit_code}", self.last_notice[:300])

    @staticmethod
    def _lines(text: str, each: Callable[[str], None]) -> str:
        *complete, rest = text.split("\n")
        for line in complete:
            each(line.rstrip("\r"))
        return rest

    def _emit(self, text: str) -> None:
        self.sink.put(RawLine(self.pod, self.container, now_rfc3339(), text))

    def _notice(self, text: str) -> None:
        if text:
            self.last_notice = text
        if text and self.on_notice is not None:
            self.on_notice(text)

    def stop(self) -> None:
        """Cancels the task: its ``finally`` closes the exec (nothing is reported for a stopped follow)."""
        if self._task is not None:
            self._task.cancel()
