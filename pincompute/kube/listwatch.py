"""THE list-then-watch loop (a reflector): one daemon thread per (cluster, collection) keeps a Store current.

LIST in pages (``limit``/``continue``) and replace the kind atomically, then WATCH from the list's
resourceVersion with bookmarks. A dropped connection, a frame cut mid-stream, a read timeout or a
non-410 ERROR event reconnects from the last event's or bookmark's resourceVersion; HTTP 410 or an
ERROR event with code 410 relists. Failures back off with full jitter. Every LIST page and WATCH open
goes through a ``Gate`` (the portal's is its cluster's circuit breaker and retry policy), and ``stop()``
unblocks a waiting read at once. Used by the operator's informers and by the portal's watch cache.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException
from urllib3.exceptions import HTTPError
from urllib3.response import BaseHTTPResponse

from pincompute.errors import TemporaryError
from pincompute.kube import rawapi
from pincompute.kube.rawapi import ApiCaller, Obj, Timeout
from pincompute.kube.retry import backoff, describe
from pincompute.kube.store import Store

log = logging.getLogger(__name__)
T = TypeVar("T")
Handler = Callable[[str, Obj], None]  # (ADDED | MODIFIED | DELETED, object), on the list-watch thread
# urllib3's HTTPError is the base of its timeout, protocol and connection errors
TRANSPORT_ERRORS: tuple[type[Exception], ...] = (HTTPError, OSError)
# a broken connection or stream: reconnect from the last resourceVersion after a backoff
# A kubeconfig that cannot be loaded (not written yet, an admin's edit in progress) is retried like a refused
# connection, its error shown, rather than ending the thread.
RECONNECT_ERRORS: tuple[type[Exception], ...] = (
    *TRANSPORT_ERRORS,
    rawapi.WatchError,
    json.JSONDecodeError,
    ConfigException,
)


class Gate(Protocol):
    """Runs one LIST page or WATCH open, retrying up to ``attempts`` times and sleeping with ``sleep``.

    A gate that refuses to call at all (an open circuit breaker) raises ``TemporaryError(delay=...)``:
    the list-watch waits ``delay`` and tries again. Other errors are the call's own.
    """

    def __call__(self, fn: Callable[[], T], *, attempts: int, sleep: Callable[[float], object]) -> T: ...


def direct(fn: Callable[[], T], *, attempts: int, sleep: Callable[[float], object]) -> T:
    """The gate without breaker or retry: one attempt; the list-watch's own backoff handles failures."""
    return fn()


@dataclass(frozen=True)
class ListWatchStats:
    objects: int
    synced: bool
    lists: int
    relists: int  # lists forced by 410 Gone
    reconnects: int  # watches that ended abnormally
    last_event_at: float | None  # unix time of the last ADDED/MODIFIED/DELETED applied
    resource_version: str
    last_error: str | None
    last_contact_at: float | None = (
        None  # unix time the apiserver last answered: a list, a watch opened or ended, any event
    )


def _interrupt(resp: BaseHTTPResponse) -> None:
    """Unblock a read in another thread without close(): closing under a reader crashes urllib3."""
    try:
        resp.shutdown()  # urllib3 >= 2.3
        return
    except (ValueError, RuntimeError, NotImplementedError, OSError):
        pass
    sock = getattr(getattr(resp, "connection", None), "sock", None)
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


class ListWatch:
    """Keeps ``store``'s ``kind`` equal to the collection at ``path`` (cluster-wide) on one cluster.

    ``on_event(type, obj)`` runs on this thread after the store changed: every watch event, and after
    each (re)list ``DELETED`` for objects gone meanwhile and ``ADDED`` for every listed object.
    ``on_listed()`` runs on this thread after each (re)list filled the store. ``optional`` collections (CRDs) end
    quietly on 404 (``gone``). A bug in the loop or in ``on_event``
    ends the thread with ``crashed`` set and ``last_error`` recorded, so the owner can restart it.
    """

    def __init__(
        self,
        api: Callable[[], ApiCaller],
        store: Store,
        kind: str,
        path: str,
        *,
        name: str,
        label_selector: str | None = None,
        field_selector: str | None = None,
        optional: bool = False,
        max_objects: int | None = None,
        on_event: Handler | None = None,
        on_listed: Callable[[], None] | None = None,
        gate: Gate = direct,
        timeout: Timeout = (5.0, 30.0),
        page_size: int = 500,
        watch_timeout: int = 300,
        backoff_base: float = 0.5,
        backoff_cap: float = 30.0,
    ) -> None:
        self.api, self.store, self.kind, self.path, self.name = api, store, kind, path, name
        self.label_selector, self.optional, self.max_objects = label_selector, optional, max_objects
        self.field_selector = field_selector
        self.on_event, self.on_listed, self.gate, self.timeout = on_event, on_listed, gate, timeout
        self.page_size, self.watch_timeout = page_size, watch_timeout
        self.backoff_base, self.backoff_cap = backoff_base, backoff_cap
        self.synced = threading.Event()
        self.gone = False  # optional collection answered 404: its CRD is not installed
        self.crashed = False
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._resp: BaseHTTPResponse | None = None
        self._rv = ""
        self._forced_rv: str | None = None
        self._lists = self._relists = self._reconnects = 0
        self._last_event_at: float | None = None
        self._last_contact_at: float | None = None
        self.last_error: str | None = None
        self.last_error_at = 0.0
        self._thread = threading.Thread(target=self._run, name=f"watch-{name}", daemon=True)

    # -- lifecycle ----------------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Ask the thread to end and unblock its read by shutting the socket down."""
        self._stop.set()
        self.drop_connection()

    def join(self, timeout: float | None = None) -> bool:
        """True when the thread has ended (or never started)."""
        if self._thread.ident is not None:
            self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    # -- test hooks -----------------------------------------------------------------------------
    def drop_connection(self) -> None:
        """Kill the current watch connection (as a proxy or apiserver restart would)."""
        with self._lock:
            resp = self._resp
        if resp is not None:
            _interrupt(resp)

    def force_resource_version(self, rv: str) -> None:
        """Make the next watch start from ``rv`` (a too-old one provokes 410 -> relist)."""
        with self._lock:
            self._forced_rv = rv
        self.drop_connection()

    def stats(self) -> ListWatchStats:
        with self._lock:
            return ListWatchStats(
                self.store.count(self.kind),
                self.synced.is_set(),
                self._lists,
                self._relists,
                self._reconnects,
                self._last_event_at,
                self._rv,
                self.last_error,
                self._last_contact_at,
            )

    # -- the loop -------------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._loop()
        except BaseException as exc:
            # Last resort: a bug must not leave a silently frozen collection. Record it; the owner restarts us.
            self._note(exc)
            self.crashed = True
            log.exception("watch %s crashed", self.name)
            raise

    def _loop(self) -> None:
        need_list, failures = True, 0
        while not self._stop.is_set():
            try:
                if need_list:
                    self._list()
                    need_list = False
                self._watch()
                failures = 0
                continue
            except rawapi.WatchGone as exc:
                self._relist_after(exc)
                need_list = True
                continue
            except TemporaryError as exc:  # the gate refused without calling (circuit open)
                self._note(exc, str(exc))
                self._stop.wait(min(max(exc.delay, 0.2), self.backoff_cap))
                continue
            except ApiException as exc:
                if exc.status == 410:  # HTTP 410 on watch open, or an expired continue token
                    self._relist_after(exc)
                    need_list = True
                    continue
                self._note(exc)
                if exc.status == 404 and self.optional:
                    self.gone = True
                    return
            except RECONNECT_ERRORS as exc:
                self._note(exc)
            with self._lock:
                self._reconnects += 1
            delay = backoff(failures, self.backoff_base, self.backoff_cap)
            log.debug("watch %s: retrying in %.2fs", self.name, delay)
            self._stop.wait(delay)
            failures += 1

    def _relist_after(self, exc: BaseException) -> None:
        self._note(exc)
        with self._lock:
            self._relists += 1

    def _note(self, exc: BaseException, text: str | None = None) -> None:
        if self._stop.is_set():
            return
        self.last_error = f"{self.kind}: {text or describe(exc)}"
        self.last_error_at = time.time()
        log.info("watch %s: %s", self.name, self.last_error)

    def _list(self) -> None:
        api = self.api()
        items: list[Obj] = []
        cont: str | None = None
        rv = ""
        # Without a handler (the portal's caches) each page is slimmed as it arrives: a relist of 100k pods held
        # every raw pod (~2.7 GB of RSS, bench/read_path.py) until the swap; now one raw page at a time. A handler
        # (the operator) is told the listed objects as listed.
        keep = self.store.slimmed if self.on_event is None else None
        while True:

            def page_fn(c: str | None = cont) -> Obj:
                return rawapi.list_page(
                    api, self.path, self.timeout, self.page_size, c, self.label_selector, self.field_selector
                )

            page = self.gate(page_fn, attempts=3, sleep=self._stop.wait)
            kind = str(page.get("kind", "")).removesuffix("List")
            api_version = page.get("apiVersion")
            for item in page.get("items") or ():
                item["kind"], item["apiVersion"] = kind, api_version  # LIST items omit them; watch has them
                items.append(keep(self.kind, item) if keep is not None else item)
            meta = page.get("metadata") or {}
            rv = meta.get("resourceVersion") or rv
            cont = meta.get("continue")
            del page  # not held while the next page is read
            if not cont or self._stop.is_set():
                break
        if self._stop.is_set():
            return
        removed = self.store.replace(self.kind, items, self.max_objects, slimmed=keep is not None)
        with self._lock:
            self._rv = rv
            self._lists += 1
            self._last_contact_at = time.time()
        self.synced.set()
        if self.on_event is not None:
            for obj in removed:
                self.on_event("DELETED", obj)
            for obj in items:
                self.on_event("ADDED", obj)
        if self.on_listed is not None:
            self.on_listed()

    def _watch(self) -> None:
        api = self.api()
        with self._lock:
            rv, self._forced_rv = self._forced_rv or self._rv, None

        def open_fn() -> BaseHTTPResponse:
            return rawapi.open_watch(
                api, self.path, rv, self.watch_timeout, self.timeout[0], self.label_selector, self.field_selector
            )

        resp = self.gate(open_fn, attempts=1, sleep=self._stop.wait)
        with self._lock:
            self._resp = resp
            self._last_contact_at = time.time()
            forced = self._forced_rv is not None  # set while we were connecting: drop_connection missed us
        clean = False
        try:
            if self._stop.is_set() or forced:
                return
            for event in rawapi.iter_events(resp):
                etype, obj = event["type"], event["object"]
                new_rv = (obj.get("metadata") or {}).get("resourceVersion")
                if etype in ("ADDED", "MODIFIED", "DELETED"):
                    self.store.apply(self.kind, etype, obj, self.max_objects)
                    now = time.time()
                    with self._lock:
                        self._last_event_at = self._last_contact_at = now
                        if new_rv:
                            self._rv = new_rv
                    if self.on_event is not None:
                        self.on_event(etype, obj)
                elif new_rv:  # BOOKMARK
                    with self._lock:
                        self._rv = new_rv
                        self._last_contact_at = time.time()
                if self._stop.is_set():
                    return
            clean = True
            with self._lock:
                self._last_contact_at = time.time()  # the server ended the watch itself: alive
        finally:
            with self._lock:
                self._resp = None
            if clean:
                resp.release_conn()  # fully read: the connection can be reused
            else:
                resp.close()  # unread bytes would poison the next request on this connection
