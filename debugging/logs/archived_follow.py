"""A one-pod log stream carrying on into the log archive (``logs.archive``) when its pod ends or is gone.

A followed log that ends (the container exited) or whose pod was deleted (4404) does not close at once: the stream
says so, then sends what the archive holds after the last line shown (its stamp; the archive's pages of one frozen
window, so no line twice and none skipped), polling every ``LOG_ARCHIVE_FOLLOW_POLL_SECONDS`` until the archive has
had nothing new for ``LOG_ARCHIVE_FOLLOW_QUIET_SECONDS`` (the node's agent ships a deleted pod's last lines a
moment later), then closes as the live log would have. A connection to a pod already gone (in a project the user
may see: ``authz.PodGone``) serves its archived lines the same way: the last ``tail`` (or those of ``since``), or
after a resume's seq (its stamp). Console lines carry the container runtime's stamps in both places; a file's
lines are stamped on arrival live and when shipped in the archive, so a file carries on from about its last line.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from channels.db import database_sync_to_async
from django.conf import settings

from base.errors import ServiceError
from clusters import runtime
from debugging.logs.archive import pod_lines_after
from debugging.logs.streams import LOG_TAIL_LINES, RawLine


def stamp_of(micros: int) -> str:
    """A resume's seq (µs since the epoch) as the RFC 3339 time the archive is read after."""
    return datetime.fromtimestamp(micros / 1_000_000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class ArchivedFollow:
    """The archive half of ``LogConsumer`` (one pod's stream; its attributes are the consumer's)."""

    gone = False  # the pod was gone at connect (the workload stream never is)
    pod_uid = ""  # the followed pod's (one pod's stream): its deletion is seen in the watch cache
    carrying = False  # gone on into the archive (once)
    last_ts = ""  # the stamp of the last line passed on (one pod's stream)
    scope: Any
    targets: list[tuple[str, str]]
    project: Any
    cluster: Any
    options: Any
    skip_until: int
    seq: int
    ended: bool
    followers: list[Any]
    tasks: list[asyncio.Task[None]]

    if TYPE_CHECKING:  # the consumer's own (a body here would shadow them in its MRO)

        async def _send(self, lines: list[RawLine]) -> None: ...
        async def _flush(self) -> None: ...
        async def quietly(self, work: Any) -> None: ...
        async def status(self, state: str, message: str) -> None: ...
        async def end(self, reason: str, code: int | None) -> None: ...
        async def close_with(self, code: int, message: str) -> None: ...

    async def _archive_only(self, after: int) -> None:
        """The pod was gone at connect: its archived lines, then the close."""
        pod, container = self.targets[0]
        await self.status("connected", f"Pod {pod} is gone: its lines from the log archive.")
        if after:
            self.skip_until = self.seq = after
        code, what = await self._carry_on(stamp_of(after) if after else "", (1000, f"Log of {pod}/{container} ended."))
        if self.ended:
            return
        await self.end(f"archived log: {what}", code)
        await self.status("closed" if code == 1000 else "error", what)
        await self.close_with(code, what)

    def watch_deletion(self, namespace: str) -> None:
        """While one pod is followed, watch the cache for its deletion: a deleted pod's log may not end by itself."""
        if self.pod_uid and self.options.follow and not self.options.previous:
            self.tasks.append(asyncio.create_task(self.quietly(self._watch(namespace))))

    async def _watch(self, namespace: str) -> None:
        pod = self.targets[0][0]
        poll = float(settings.LOG_ARCHIVE_FOLLOW_POLL_SECONDS)
        while not self.ended and not self.carrying:
            await asyncio.sleep(poll)
            cache = runtime.member_caches().get(self.cluster.name)
            found = cache.get("pods", namespace, pod) if cache is not None else None
            if found is None or (found.get("metadata") or {}).get("uid") != self.pod_uid:
                for follower in self.followers:
                    follower.stop()
                await self.to_archive(f"Pod {pod} was deleted")
                return

    async def to_archive(self, what: str) -> None:
        """The followed log ended (``what`` says how): the archive's lines after the last one shown, then the close."""
        if self.carrying or self.ended:
            return
        self.carrying = True
        pod, container = self.targets[0]
        await self._flush()
        await self.status("connected", f"{what}: what the log archive has after it follows.")
        code, message = await self._carry_on(self.last_ts, (1000, f"Log of {pod}/{container} ended."))
        if self.ended:
            return
        await self.end(f"log ended: {message}", code)
        await self.status("closed" if code == 1000 else "error", message)
        await self.close_with(code, message)

    async def _carry_on(self, after: str, outcome: tuple[int, str]) -> tuple[int, str]:
        """Send the archived lines after ``after`` ("" for the last ones) until the archive is quiet; the close code
        and message (``outcome``, or the archive's failure when nothing could be read from it)."""
        pod, container = self.targets[0]
        scope = {"pod": pod, "container": container, "cluster": self.cluster.name}
        scope["source"] = self.options.file or "console"
        if not after and self.options.since_seconds is not None:
            scope["since"] = f"{self.options.since_seconds}s"
        tail = self.options.tail if self.options.tail is not None else LOG_TAIL_LINES
        poll = float(settings.LOG_ARCHIVE_FOLLOW_POLL_SECONDS)
        quiet = float(settings.LOG_ARCHIVE_FOLLOW_QUIET_SECONDS)
        loop, read = asyncio.get_running_loop(), database_sync_to_async(pod_lines_after)
        heard, first = loop.time(), True
        while not self.ended:
            try:
                found = await read(self.scope.get("user"), self.project.name, scope, after, tail)
            except ServiceError as exc:
                if first and not after:
                    return exc.close_code, exc.message
                await self.status("connected", f"The log archive could not be read: {exc.message}")
                return outcome
            if found:
                after, heard = found[-1].time, loop.time()
                await self._send([RawLine(pod, container, line.time, line.message) for line in found])
            first = False
            if not self.options.follow or loop.time() - heard >= quiet:
                return outcome
            await asyncio.sleep(poll)
        return outcome
