"""A fixed pool of threads for the websockets' synchronous work, each socket pinned to one of them.

A websocket's synchronous work (session and user lookup, ``database_sync_to_async``: authorization, session rows,
audit, re-checks) runs in asgiref's thread-sensitive mode. Without a context every socket of the process shares ONE
thread, and under load (bench/load.py: 100 shells and 50 log streams opening while 200 people browse) a shell took
10-40 s to open, queued behind the others. A thread per socket fixed that but costs ~95 KiB a socket (its stack, its
malloc arena's share, its thread state): at 500 idle shells, most of a shell's memory.

Here a socket gets, when it opens, the pool thread with the least work queued (then the fewest sockets) and keeps it
for its lifetime (thread-sensitive: its calls run one at a time, in order, on one thread). Threads are bounded by the
pool size (``WEBSOCKET_SYNC_THREADS``); a socket blocked in slow synchronous work holds up only the sockets pinned to
its own thread, and new sockets go to the idle threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from asgiref.sync import SyncToAsync, ThreadSensitiveContext

DEFAULT_THREADS = 16


class PinnedThread(ThreadPoolExecutor):
    """One worker thread (created on first use) that counts the calls queued or running on it."""

    def __init__(self, name: str) -> None:
        super().__init__(max_workers=1, thread_name_prefix=name)
        self.pending = 0  # submitted, not finished
        self.sockets = 0  # sockets pinned to it now
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        with self._lock:
            self.pending += 1
        future = super().submit(fn, *args, **kwargs)
        future.add_done_callback(self._finished)
        return future

    def _finished(self, _: Future[Any]) -> None:
        with self._lock:
            self.pending -= 1


class PinnedContext(ThreadSensitiveContext):
    """asgiref's thread-sensitive context, bound to one pool thread. Unlike ``ThreadSensitiveContext(executor=...)``
    the binding outlives the block: a task of the socket that still calls synchronous code after the connection
    ended (an end racing the client's disconnect) runs on the same thread instead of raising RuntimeError."""

    def __init__(self, thread: PinnedThread) -> None:
        super().__init__()
        self.thread = thread

    async def __aenter__(self) -> PinnedContext:
        self.token = SyncToAsync.thread_sensitive_context.set(self)
        SyncToAsync.context_to_thread_executor[self] = self.thread  # weakly keyed: gone with the last task
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.token is not None:
            SyncToAsync.thread_sensitive_context.reset(self.token)
            self.token = None


class SyncThreadPool:
    """ASGI middleware: each connection runs its synchronous work on one thread of a fixed pool."""

    def __init__(self, app: Any, threads: int = DEFAULT_THREADS, name: str = "ws-sync") -> None:
        if threads < 1:
            raise ValueError("a sync thread pool needs at least one thread")
        self.app = app
        self.threads = [PinnedThread(f"{name}-{i}") for i in range(threads)]

    def pick(self) -> PinnedThread:
        """The thread with the least work queued, then the fewest sockets (the first such one)."""
        return min(self.threads, key=lambda t: (t.pending, t.sockets))

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        thread = self.pick()
        thread.sockets += 1
        try:
            async with PinnedContext(thread):
                await self.app(scope, receive, send)
        finally:
            thread.sockets -= 1
