"""A workload's logs across every member cluster it runs on, pods joining and leaving as they come and go.

``/ws/workload-logs/<namespace>/<workload>/``: like stern, the stream follows the member clusters' watch caches
(already watched; reading them costs no apiserver call): every ``DISCOVER_SECONDS`` it lists the pods labelled
``pincompute.io/workload=<workload>`` in the namespace on each member, starts a console-log follow (an asyncio
task, ``logs.streams.LogFollower``) for each container it has not seen, and stops the follows of pods that left the
cache. Each line carries its ``cluster`` besides ``pod`` and ``container``; a status message tells each join and
leave. At most ``MAX_WORKLOAD_STREAMS`` containers are followed at once. Log options apply as for one pod, except
``file`` (a file is followed in one container).

A workload that does not exist is refused 4404 (``workload_known``): neither the host has an object of that name
(any kind) nor a member runs pods of it. One that exists with no pods yet (just created, scaled to zero) stays open
and picks its pods up as they come; when the host cannot tell (no host cache, not synced) the stream opens too.
A container whose log fails (its member's apiserver unreachable, broken or hung: 4502) gets a status message; the
others go on. Like stern, it is followed again while its pod stays in the cache: within ``DEBUG_LOG_REFOLLOW_SECONDS``,
doubling up to ``REFOLLOW_MAX_SECONDS`` (full jitter) while its member still fails (quietly), and a status message says
when it is followed again. The new follow reads from the last line the stream had (``sinceSeconds``), lines up to it
skipped.
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass
from typing import Any

from channels.db import database_sync_to_async
from kubernetes.config.config_exception import ConfigException

from base.errors import Invalid, NotFound, ServiceError
from clusters import runtime
from clusters.models import Cluster, FederationRole
from debugging.authz import resolve_namespace
from debugging.logs.consumer import MULTI_POD_TAIL_LINES, LogConsumer
from debugging.logs.options import parse_log_options, resume_window
from debugging.logs.streams import LOG_TAIL_LINES, LogFollower, OnEnd, setting, ts_micros
from debugging.upstream import UPSTREAM_FAILED, StreamFailure
from pincompute.kinds import KINDS
from pincompute.kube.retry import backoff
from pincompute.labels import WORKLOAD_LABEL

DISCOVER_SECONDS = 1.0
CLUSTERS_EVERY = 10  # discovery passes between two reads of the member list
MAX_WORKLOAD_STREAMS = 50
LIVE_PHASES = ("Running", "Succeeded", "Failed")
REFOLLOW_SECONDS, REFOLLOW_MAX_SECONDS = 1.0, 30.0


@dataclass
class Retry:
    """A container whose follow failed: how many times in a row, when to try again, the last line it had."""

    attempts: int
    due: float
    last_ts: str = ""


def refollow_delay(attempts: int) -> float:
    """The one backoff (full jitter): the containers of a member that failed do not all come back at once."""
    return backoff(attempts - 1, setting("DEBUG_LOG_REFOLLOW_SECONDS", REFOLLOW_SECONDS), REFOLLOW_MAX_SECONDS)


@dataclass(frozen=True)
class Source:
    cluster: str
    pod: str
    uid: str
    container: str

    @property
    def label(self) -> str:
        return f"{self.cluster}/{self.pod}/{self.container}"


def member_targets() -> dict[str, tuple[Cluster, Any]]:
    """Every member cluster with a watch cache: name -> (Cluster, its cache)."""
    caches = runtime.member_caches()
    rows = Cluster.objects.filter(role=FederationRole.MEMBER, name__in=list(caches))
    return {c.name: (c, caches[c.name]) for c in rows}


def workload_sources(targets: dict[str, tuple[Cluster, Any]], namespace: str, workload: str) -> set[Source]:
    """The containers of the workload's running (or finished) pods on every member, from the caches."""
    found: set[Source] = set()
    for name, (_, cache) in sorted(targets.items()):
        for pod in cache.list("pods", namespace=namespace, label_selector={WORKLOAD_LABEL: workload}):
            if (pod.get("status") or {}).get("phase") not in LIVE_PHASES:
                continue
            meta = pod["metadata"]
            for container in (pod.get("spec") or {}).get("containers") or []:
                found.add(Source(name, meta["name"], meta.get("uid", ""), container["name"]))
    return found


def workload_known(namespace: str, workload: str) -> bool | None:
    """True when a member runs pods of the workload (they have logs, even a moment after it is deleted) or the host
    holds a workload of that name in any kind; False when a synced host cache has neither; None when the host cannot
    tell. Caches only: no apiserver call for a name a client made up."""
    for cache in runtime.member_caches().values():
        if cache.list("pods", namespace=namespace, label_selector={WORKLOAD_LABEL: workload}):
            return True
    host = runtime.host_cache()
    if host is None or not host.synced:
        return None
    return any(host.get(info.plural, namespace, workload) is not None for info in KINDS.values())


class WorkloadLogConsumer(LogConsumer):
    async def connect(self) -> None:
        await self.accept()
        self.followers, self.tasks = [], []
        self.seq, self.skip_until, self.sent_bytes, self.ended_streams = 0, 0, 0, 0
        self.failures = []
        self.resume = asyncio.get_running_loop().create_future()
        self.active: dict[Source, LogFollower] = {}
        self.seen: set[Source] = set()
        self.retries: dict[Source, Retry] = {}
        self.cluster = None
        self.targets = []
        if not await self.names_ok():
            return
        kw, user = self.kwargs(), self.scope.get("user")
        try:
            self.options = parse_log_options(self.scope.get("query_string", b"").decode("latin1"))
            if self.options.file is not None:
                raise Invalid.on("file", "A file is followed in one container: open the pod's logs.")
            self.project = await database_sync_to_async(resolve_namespace)(user, kw["namespace"])
            if await database_sync_to_async(workload_known)(kw["namespace"], kw["workload"]) is False:
                raise NotFound(f"No such workload: {kw['workload']} in {kw['namespace']}.")
        except ServiceError as refused:
            await self.refuse(refused)
            return
        workload = kw["workload"]
        admitted = await self.admit(
            project=self.project, cluster="*", namespace=kw["namespace"], pod=f"workload:{workload}", container="*"
        )
        if not admitted:
            return
        await self.audit_open(f"{kw['namespace']}/workload:{workload}", 0)
        self.tasks.append(asyncio.create_task(self.quietly(self._start())))

    async def start_followers(self, after: int) -> None:
        self.tasks.append(asyncio.create_task(self.quietly(self._discover(after))))

    async def _discover(self, after: int) -> None:
        """The stern loop: join new containers, drop the ones whose pod left the caches."""
        kw = self.kwargs()
        namespace, workload = kw["namespace"], kw["workload"]
        targets: dict[str, tuple[Cluster, Any]] = {}
        apis: dict[str, Any] = {}
        passes, capped = 0, False
        while not self.ended:
            if passes % CLUSTERS_EVERY == 0:
                targets = await database_sync_to_async(member_targets)()
            found = workload_sources(targets, namespace, workload)
            first = passes == 0
            now = time.monotonic()
            for source in sorted(found - self.seen, key=lambda s: (s.cluster, s.pod, s.container)):
                if source in self.retries and self.retries[source].due > now:
                    continue
                if len(self.active) >= MAX_WORKLOAD_STREAMS:
                    if not capped:
                        capped = True
                        await self.status("connected", f"Following the first {MAX_WORKLOAD_STREAMS} containers only.")
                    break
                self.seen.add(source)
                if source.cluster not in apis:
                    try:
                        apis[source.cluster] = await database_sync_to_async(runtime.api_for)(targets[source.cluster][0])
                    except ConfigException as exc:
                        apis[source.cluster] = None
                        await self.status("connected", f"Cannot read logs on {source.cluster}: {exc}")
                if apis[source.cluster] is None:
                    continue
                self._follow(
                    apis[source.cluster], namespace, source, after if first else 0, len(found), joined=not first
                )
                if not first and source not in self.retries:
                    await self.status("connected", f"{source.label} joined.")
            for source in [s for s in self.active if s not in found]:
                self.active.pop(source).stop()
                self.retries.pop(source, None)
                await self.status("connected", f"{source.label} left.")
            for source in [s for s in self.retries if s not in found and s not in self.active]:
                del self.retries[source]  # its pod left while it was waiting to be followed again
                self.seen.discard(source)
                await self.status("connected", f"{source.label} left.")
            if first:
                clusters = sorted({s.cluster for s in self.active})
                await self.status(
                    "connected",
                    f"Following {len(self.active)} container(s) of {workload} on {', '.join(clusters) or 'no cluster'}"
                    + (f", resumed after {after}" if after else ""),
                )
            passes += 1
            await asyncio.sleep(DISCOVER_SECONDS)

    def _follow(self, api: Any, namespace: str, source: Source, after: int, streams: int, *, joined: bool) -> None:
        """Start one container's follow: a resume re-reads what the client could have missed; a container that
        joined later is read from its start (up to LOG_TAIL_LINES); the first ones show their recent lines."""
        opts = self.options
        since, tail = opts.since_seconds, opts.tail
        retry, skip_through = self.retries.get(source), 0
        if retry is not None and retry.last_ts:  # followed again: from the last line it had, that one excluded
            skip_through = ts_micros(retry.last_ts)
            since, tail = max(1, math.ceil(time.time() - skip_through / 1e6) + 1), None
        elif after:
            self.skip_until, since, tail = resume_window(after, time.time(), max(1, streams))
            self.seq = max(self.seq, self.skip_until)
        elif tail is None and since is None:
            tail = LOG_TAIL_LINES if joined else MULTI_POD_TAIL_LINES
        follower = LogFollower(
            api,
            namespace,
            source.pod,
            source.container,
            self.buffer,
            tail_lines=tail,
            since_seconds=since,
            on_end=self._on_end(source),
            cluster=source.cluster,
            skip_through=skip_through,
            **opts.follower_kwargs(),
        )
        if retry is not None:
            follower.on_open = lambda: self._later(lambda: self._followed_again(source, follower))
        self.active[source] = follower
        follower.start()

    async def _followed_again(self, source: Source, follower: LogFollower) -> None:
        if self.active.get(source) is follower and self.retries.pop(source, None) is not None and not self.ended:
            await self.status("connected", f"Log of {source.label} followed again.")

    def _on_end(self, source: Source) -> OnEnd:
        def ended(pod: str, container: str, reason: str, failure: StreamFailure | None = None) -> None:
            self._later(lambda: self._source_ended(source, failure))

        return ended

    async def _source_ended(self, source: Source, failure: StreamFailure | None) -> None:
        """One container's log ended (its pod finished or went away) or failed (its member's apiserver could not be
        reached): say so; the stream goes on."""
        await asyncio.sleep(0.1)
        follower = self.active.pop(source, None)
        if follower is None or self.ended:
            return
        if failure is not None and failure.code == UPSTREAM_FAILED:  # its member failed: follow it again later
            before = self.retries.get(source)
            attempts = 1 if before is None or follower.opened else before.attempts + 1
            last_ts = follower.last_ts or (before.last_ts if before is not None else "")
            self.retries[source] = Retry(attempts, time.monotonic() + refollow_delay(attempts), last_ts)
            self.seen.discard(source)
            if attempts > 1:
                return  # still failing: said once
            why = failure.message(source.cluster).rstrip(".")
            await self.status("connected", f"Log of {source.label} failed: {why}. Following it again when it answers.")
            return
        how = "ended" if failure is None else f"failed: {failure.message(source.cluster).rstrip('.')}"
        await self.status("connected", f"Log of {source.label} {how}.")

    async def stop_streams(self) -> None:
        self.followers = list(self.active.values())
        await super().stop_streams()
