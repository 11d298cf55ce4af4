"""Live log websockets: one container's console log or one of its files, or every pod matching a selector.

seq is a per-stream counter that also encodes time: seq = max(previous + 1, line timestamp in µs). It increases
strictly, and a NEW connection can honour {"type":"resume","after_seq":N}: the readers re-read with since_seconds
covering N (bounded by ``logs.options.resume_window``) and skip every line stamped at or before N, and numbering
continues above N, so the widget (which drops seq <= last seen) shows the gap and no duplicates. The server waits
up to RESUME_WAIT_SECONDS after accept for a resume before starting the readers. Options (tail, since,
timestamps, previous, follow, include/exclude, file): ``logs.options``.

A file (``?file=``) is followed with ``tail -F`` over exec (``logs.files``): a path the pod's kind declares is
readable by anyone who may read the logs; any other path only by those who may open a shell in that container
(a viewer must not read a mounted token through a "log"). Its lines are stamped on arrival, so a resume of a
file starts from new lines only.

Lines go out in batches every ~50 ms: ``{"type":"lines","lines":[{"seq","pod","container","ts","text"}]}``, plus
``"cluster"`` on the streams of a workload across clusters (``logs.workload_consumer``).

How a stream ends is in its close code: 1000 only when the log (or every log of a selector) ended normally; 4502
when the member's apiserver (or the kubelet behind it) could not be reached or failed, 4404 when what was asked for
is not there (``previous=1`` for a container that never restarted is refused before anything is read). Malformed
options, a selector among them, are 4400; 4403 is kept for permission (a file the kind does not declare).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from kubernetes.config.config_exception import ConfigException
from uvicorn.protocols.utils import ClientDisconnected

from base.errors import Forbidden, Invalid, NotFound, ServiceError
from clusters.runtime import api_for
from debugging import services
from debugging.authz import MAX_STREAM_PODS, PodGone, parse_selector, resolve_pod, resolve_selector
from debugging.logs.archived_follow import ArchivedFollow
from debugging.logs.files import FileFollower, declared_log_files
from debugging.logs.options import LogOptions, parse_log_options, resume_window
from debugging.logs.streams import LOG_TAIL_LINES, LineBuffer, LogFollower, RawLine, restarted, ts_micros
from debugging.models import SessionKind
from debugging.socketbase import PolicedConsumer
from debugging.upstream import StreamFailure

BATCH_SECONDS = 0.05
RESUME_WAIT_SECONDS = 0.3
MULTI_POD_TAIL_LINES = 50


def checked_selector(raw: str) -> str:
    """``raw`` if it is a selector ``authz`` can match; else ``Invalid`` (4400: a malformed option, which authz,
    whose other refusals are all about what exists, reports as ``NotFound``)."""
    try:
        parse_selector(raw)
    except NotFound as bad:
        raise Invalid.on("selector", bad.message) from None
    return raw


def no_previous(pod: str, container: str) -> NotFound:
    return NotFound(f"No previous container: {container} in {pod} has not restarted, so there is no earlier log.")


class LogConsumer(ArchivedFollow, PolicedConsumer):
    """Live logs of one container (its console or a file) or of every pod matching a selector."""

    kind = SessionKind.LOGS

    async def connect(self) -> None:
        await self.accept()
        self.followers: list[Any] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.seq, self.skip_until, self.sent_bytes, self.ended_streams = 0, 0, 0, 0
        self.failures: list[StreamFailure] = []
        self.resume: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        if not await self.names_ok():
            return
        kw, user = self.kwargs(), self.scope.get("user")
        query, raw = self.scope.get("query_string", b"").decode("latin1"), ""
        need_exec = sidecar = False
        try:
            self.options: LogOptions = parse_log_options(query)
            if "pod" in kw:
                try:
                    ref = await database_sync_to_async(resolve_pod)(
                        user, kw["cluster"], kw["namespace"], kw["pod"], container=kw["container"]
                    )
                except PodGone as gone:  # the user's project: its archived lines instead (not a previous one)
                    if self.options.previous:
                        raise
                    target, pod, container = self._gone(gone, kw["container"])
                    ref = None
            if "pod" in kw and ref is not None:
                self.targets, self.project, self.cluster = [(ref.name, kw["container"])], ref.project, ref.cluster
                self.pod_uid = str((ref.pod.get("metadata") or {}).get("uid", ""))
                target, pod, container = f"{ref.namespace}/{ref.name}/{kw['container']}", ref.name, kw["container"]
                if self.options.previous and self.options.file is None and not restarted(ref.pod, container):
                    raise no_previous(pod, container)
                if self.options.file is not None:
                    need_exec = self.options.file not in declared_log_files(ref.pod)
                    sidecar = need_exec and container in ref.sidecars
                    if need_exec:  # exactly a shell's rules: role, sidecar, a read-only API token
                        try:
                            await database_sync_to_async(resolve_pod)(
                                user, kw["cluster"], kw["namespace"], kw["pod"], container=container, need_exec=True
                            )
                        except Forbidden as refused:
                            raise Forbidden(
                                f"{refused.message} A file its kind does not declare "
                                f"({', '.join(declared_log_files(ref.pod)) or 'none'}) needs the same."
                            ) from None
                    target += f":{self.options.file}"
            elif "pod" not in kw:
                if self.options.file is not None:  # a rule of the stream's shape, for every role: not a permission
                    raise Invalid.on("file", "A file is followed in one container: open the pod's logs.")
                raw = checked_selector(parse_qs(query).get("selector", [""])[0])
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
            project=self.project,
            cluster=self.cluster.name,
            namespace=kw["namespace"],
            pod=pod,
            container=container,
            need_exec=need_exec,
            sidecar=sidecar,
            detail=f"file={self.options.file}" if self.options.file else "",
        )
        if not admitted:
            return
        if not self.targets:
            await self.status("connected", f"No running pods match {raw}.")
        await self.audit_open(target, len(self.targets))
        self.tasks.append(asyncio.create_task(self.quietly(self._start())))

    def _gone(self, gone: PodGone, container: str) -> tuple[str, str, str]:
        """A pod already gone: its archived lines will be served (the target, pod and container audited)."""
        self.gone, self.targets, self.project, self.cluster = True, [(gone.name, container)], gone.project, gone.cluster
        target = f"{gone.namespace}/{gone.name}/{container}" + (f":{self.options.file}" if self.options.file else "")
        return target, gone.name, container

    async def audit_open(self, target: str, streams: int) -> None:
        await database_sync_to_async(services.record_logs_opened)(
            target,
            actor=self.scope.get("user"),
            project=self.project.name,
            cluster=self.cluster.name if self.cluster is not None else "",
            streams=streams,
            session=self.session_id,
            file=self.options.file,
        )

    def bytes_out(self) -> int:
        return self.sent_bytes

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "resume" and not self.resume.done():
            try:
                self.resume.set_result(max(0, int(content.get("after_seq", 0))))
            except (TypeError, ValueError, OverflowError):  # OverflowError: JSON's Infinity
                self.resume.set_result(0)

    async def _start(self) -> None:
        try:
            after = await asyncio.wait_for(asyncio.shield(self.resume), RESUME_WAIT_SECONDS)
        except TimeoutError:
            after = 0
        self.buffer = LineBuffer(asyncio.get_running_loop())
        if self.gone:
            await self._archive_only(after)
            return
        try:
            await self.start_followers(after)
        except ConfigException as exc:
            message = f"Could not read logs: {exc}"
            await self.end(f"could not start: {exc}", 4502)
            await self.status("error", message)
            await self.close_with(4502, message)
            return
        self.tasks.append(asyncio.create_task(self.quietly(self._send_batches())))
        self.watch_deletion(self.kwargs()["namespace"])

    async def start_followers(self, after: int) -> None:
        api = await database_sync_to_async(api_for)(self.cluster)
        opts = self.options
        since, tail = opts.since_seconds, opts.tail
        if tail is None and since is None:
            tail = LOG_TAIL_LINES if len(self.targets) == 1 else MULTI_POD_TAIL_LINES
        if after:
            self.skip_until, since, tail = resume_window(after, time.time(), len(self.targets))
            self.seq = self.skip_until
        namespace = self.kwargs()["namespace"]
        for pod, container in self.targets:
            follower: Any
            if opts.file is not None:
                follower = FileFollower(
                    api,
                    namespace,
                    pod,
                    container,
                    opts.file,
                    self.buffer,
                    tail_lines=0 if after else tail,  # re-read lines would carry new stamps: only new ones
                    follow=opts.follow,
                    on_end=self._ended_from_thread,
                    on_notice=self._notice_from_thread,
                )
            else:
                follower = LogFollower(
                    api,
                    namespace,
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
        if self.targets:
            what = f"{opts.file} in {self.targets[0][0]}" if opts.file else f"{len(self.targets)} container log(s)"
            await self.status("connected", f"Following {what}" + (f", resumed after {after}" if after else ""))

    def _later(self, make: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run a coroutine on the event loop from a reader thread or task callback."""
        self.buffer._loop.call_soon_threadsafe(lambda: self.tasks.append(asyncio.create_task(self.quietly(make()))))

    async def quietly(self, work: Coroutine[Any, Any, None]) -> None:
        """A background task whose client has gone: end the session as ``__call__`` does for the client's own
        messages, instead of an exception no one retrieves. A send after the socket's own close frame (a RuntimeError
        once ``end`` ran) is dropped; any other RuntimeError is a bug and propagates."""
        try:
            await work
        except ClientDisconnected:
            await self.end("client closed", None)
        except RuntimeError:
            if not self.ended:
                raise

    def _ended_from_thread(self, pod: str, container: str, reason: str, failure: StreamFailure | None = None) -> None:
        self._later(lambda: self._ended(pod, container, reason, failure))

    def _notice_from_thread(self, text: str) -> None:
        self._later(lambda: self._notice(text))

    async def _notice(self, text: str) -> None:
        if not self.ended:
            await self.status("connected", text[:500])

    def _where(self) -> str:
        return self.cluster.name if self.cluster is not None else ""

    async def _ended(self, pod: str, container: str, reason: str, failure: StreamFailure | None = None) -> None:
        await asyncio.sleep(BATCH_SECONDS * 2)  # let the last lines go out first
        self.ended_streams += 1
        if failure is not None:
            self.failures.append(failure)
        if self.ended or self.carrying:
            return
        if len(self.targets) == 1 or self.ended_streams >= len(self.targets):
            code, what = self._outcome(pod, container)
            await self._flush()
            if self.pod_uid and self.options.follow and not self.options.previous and code in (1000, 4404):
                await self.to_archive(what.rstrip("."))
                return
            await self.end(f"log {reason}", code)
            await self.status("closed" if code == 1000 else "error", what)
            await self.close_with(code, what)
        elif failure is not None:
            await self.status("connected", f"Log of {pod}/{container} failed: {self._failed(failure)[1]}")
        else:
            await self.status("connected", f"Log of {pod}/{container} ended.")

    def _outcome(self, pod: str, container: str) -> tuple[int, str]:
        """The close code and message once every log ended: 1000 unless they all failed (then the first failure's
        code): a selector's logs that partly failed still delivered, and each failure had its status message."""
        if len(self.targets) == 1:
            failure = self.failures[0] if self.failures else None
            return (1000, f"Log of {pod}/{container} ended.") if failure is None else self._failed(failure)
        count, failed = len(self.targets), len(self.failures)
        if failed >= count:
            return self.failures[0].code, f"All {count} logs failed. {self._failed(self.failures[0])[1]}"
        return 1000, f"All {count} logs ended" + (f" ({failed} failed)." if failed else ".")

    def _failed(self, failure: StreamFailure) -> tuple[int, str]:
        return failure.code, failure.message(self._where()).rstrip(".") + "."

    async def _send_batches(self) -> None:
        while True:
            await self.buffer.ready.wait()
            await asyncio.sleep(BATCH_SECONDS)
            await self._flush()

    async def _flush(self) -> None:
        lines, dropped = self.buffer.drain()
        if dropped:
            await self.status("connected", f"{dropped} lines dropped (client too slow)")
        await self._send(sorted(lines, key=lambda raw: raw.ts))

    async def _send(self, lines: list[RawLine]) -> None:
        if lines and len(self.targets) == 1:
            self.last_ts = lines[-1].ts
        out = [
            self._message(line)
            for line in lines
            if (not self.skip_until or ts_micros(line.ts) > self.skip_until) and self.options.wanted(line.text)
        ]
        if out:
            self.sent_bytes += sum(len(m["text"]) for m in out)
            await self.send_json({"type": "lines", "lines": out})

    def _message(self, line: RawLine) -> dict[str, Any]:
        self.seq = max(self.seq + 1, ts_micros(line.ts))
        message = {
            "type": "line",
            "seq": self.seq,
            "pod": line.pod,
            "container": line.container,
            "ts": line.ts,
            "text": f"{line.ts} {line.text}" if self.options.timestamps else line.text,
        }
        if line.cluster:
            message["cluster"] = line.cluster
        return message

    async def stop_streams(self) -> None:
        current = asyncio.current_task()
        for task in self.tasks:
            if task is not current:
                task.cancel()
        for follower in self.followers:
            follower.stop()
