"""One daemon thread per (cluster, resource): LIST, then WATCH from the list's resourceVersion.

The reflector loop: relist on 410 Gone, resume from the last seen/bookmarked resourceVersion after a
dropped connection, back off (jittered) while the cluster is failing. Opening connections goes through
the cluster's breaker so the cluster's health reflects what the watches see.
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import HTTPError
from urllib3.response import BaseHTTPResponse

from . import rawapi
from .breaker import CircuitOpen
from .client import ClientPool
from .resources import ResourceSpec
from .retry import TRANSPORT_ERRORS, backoff, describe
from .store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ResourceStats:
    objects: int
    synced: bool
    lists: int
    relists: int  # lists forced by 410 Gone
    reconnects: int  # watches that ended abnormally
    last_event_at: float | None  # unix time of the last ADDED/MODIFIED/DELETED applied
    resource_version: str
    last_error: str | None


def _interrupt(resp: BaseHTTPResponse) -> None:
    """Unblock a read in another thread without close(): closing under a reader crashes urllib3."""
    try:
        resp.shutdown()  # urllib3 >= 2.3
        return
    except (ValueError, RuntimeError, NotImplementedError, OSError):
        pass
    sock = getattr(getattr(resp, "connection", None), "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


class ResourceWatcher:
    def __init__(
        self,
        pool: ClientPool,
        cluster: str,
        spec: ResourceSpec,
        store: Store,
        *,
        page_size: int = 500,
        watch_timeout: int = 300,
        backoff_base: float = 0.5,
        backoff_cap: float = 30.0,
    ) -> None:
        self.pool, self.cluster, self.spec, self.store = pool, cluster, spec, store
        self.page_size, self.watch_timeout = page_size, watch_timeout
        self.backoff_base, self.backoff_cap = backoff_base, backoff_cap
        self.synced = threading.Event()
        self.gone = False  # optional resource answered 404: its CRD is not installed
        self.crashed = False
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._resp: BaseHTTPResponse | None = None
        self._rv = ""
        self._forced_rv: str | None = None
        self._lists = self._relists = self._reconnects = 0
        self._last_event_at: float | None = None
        self.last_error: str | None = None
        self.last_error_at = 0.0
        self._thread = threading.Thread(target=self._run, name=f"watch-{cluster}-{spec.key}", daemon=True)

    # -- lifecycle ----------------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Ask the thread to end and unblock its read by shutting the socket down."""
        self._stop.set()
        self.drop_connection()

    def join(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

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

    def stats(self) -> ResourceStats:
        with self._lock:
            return ResourceStats(
                self.store.count(self.spec.key), self.synced.is_set(), self._lists, self._relists,
                self._reconnects, self._last_event_at, self._rv, self.last_error,
            )

    # -- the loop -------------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._loop()
        except BaseException as exc:
            # A bug must not leave a silently frozen resource: record it; the cache restarts us.
            self._note(exc)
            self.crashed = True
            log.exception("watch %s/%s crashed", self.cluster, self.spec.key)
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
                self._note(exc)
                need_list = True
                with self._lock:
                    self._relists += 1
                continue
            except CircuitOpen as exc:
                self._note(exc)
                self._stop.wait(min(max(exc.retry_in, 0.2), self.backoff_cap))
                continue
            except ApiException as exc:
                if exc.status == 410:  # HTTP 410 on watch open, or an expired continue token
                    self._note(exc)
                    need_list = True
                    with self._lock:
                        self._relists += 1
                    continue
                if exc.status == 404 and self.spec.optional:
                    self._note(exc)
                    self.gone = True
                    return
                self._note(exc)
            except (*TRANSPORT_ERRORS, HTTPError, rawapi.WatchError, json.JSONDecodeError) as exc:
                self._note(exc)
            with self._lock:
                self._reconnects += 1
            self._stop.wait(backoff(failures, self.backoff_base, self.backoff_cap, random.random))
            failures += 1

    def _note(self, exc: BaseException) -> None:
        if self._stop.is_set():
            return
        self.last_error = f"{self.spec.key}: {describe(exc)}"
        self.last_error_at = time.time()
        log.info("watch %s/%s: %s", self.cluster, self.spec.key, self.last_error)

    def _list(self) -> None:
        api = self.pool.api(self.cluster)
        items: list[dict[str, Any]] = []
        cont: str | None = None
        rv = ""
        while True:
            page = self.pool.run(
                self.cluster,
                lambda c=cont: rawapi.list_page(api, self.spec.path, self.pool.timeout, self.page_size, c),
                attempts=3, sleep=self._stop.wait,
            )
            kind = str(page.get("kind", "")).removesuffix("List")
            api_version = page.get("apiVersion")
            for item in page.get("items") or ():
                item["kind"], item["apiVersion"] = kind, api_version  # LIST items omit them; watch has them
                items.append(item)
            meta = page.get("metadata") or {}
            rv = meta.get("resourceVersion") or rv
            cont = meta.get("continue")
            if not cont or self._stop.is_set():
                break
        if self._stop.is_set():
            return
        self.store.replace(self.spec.key, items, self.spec.max_objects)
        with self._lock:
            self._rv = rv
            self._lists += 1
        self.synced.set()

    def _watch(self) -> None:
        api = self.pool.api(self.cluster)
        with self._lock:
            rv, self._forced_rv = self._forced_rv or self._rv, None
        resp = self.pool.run(
            self.cluster,
            lambda: rawapi.open_watch(api, self.spec.path, rv, self.watch_timeout, self.pool.timeout[0]),
            attempts=1, sleep=self._stop.wait,
        )
        with self._lock:
            self._resp = resp
            forced = self._forced_rv is not None  # set while we were connecting: drop_connection missed us
        clean = False
        try:
            if self._stop.is_set() or forced:
                return
            for event in rawapi.iter_events(resp):
                etype, obj = event.get("type"), event.get("object") or {}
                new_rv = (obj.get("metadata") or {}).get("resourceVersion")
                if etype in ("ADDED", "MODIFIED", "DELETED"):
                    self.store.apply(self.spec.key, etype, obj, self.spec.max_objects)
                    now = time.time()
                    with self._lock:
                        self._last_event_at = now
                if new_rv:
                    with self._lock:
                        self._rv = new_rv
            clean = True
        finally:
            with self._lock:
                self._resp = None
            if clean:
                resp.release_conn()  # fully read: the connection can be reused
            else:
                resp.close()  # unread bytes would poison the next request on this connection
