"""The node's log agent: every line of every pod's console log and declared log files, shipped to VictoriaLogs.

What a production agent (Vector, Fluent Bit: deploy/helm/pinconsole/README.md) does on a node, here in the pod
supervisor: tail each pod's files from an offset, send the new lines with their labels to ``/insert/jsonline``
(stream fields: ``STREAM_FIELDS``) and move the offset on only once the store answered 2xx. The files are the
buffer: while the store is down nothing moves, and the same lines go again when it is back (at least once, never
lost). A deleted pod's rest is read into memory before its files are removed and sent first, with retries.
Offsets are kept in ``<podlogs>/.archive-offsets.json``, so a restarted supervisor goes on where it was.

A pod's files are its own: they are opened without following a symlink it may have planted (``podfs``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import stat
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pincompute.kinds import DEFAULT_LOG_FILES, KINDS
from pincompute.labels import KIND_LABEL, PROJECT_LABEL, WORKLOAD_LABEL

from . import podfs
from .watch import Pod, Registry

log = logging.getLogger(__name__)
STREAM_FIELDS = ("cluster", "namespace", "project", "workload", "kind", "pod", "container", "source")
CONSOLE = "console"
READ_BYTES = 256 * 1024  # per file and pass
HELD_MAX_LINES = 1_000_000  # lines of deleted pods waiting for the store; past this the oldest are dropped, logged
SEND_TIMEOUT = 10.0


@dataclass
class _File:
    inode: int = 0
    offset: int = 0


@dataclass
class _Source:
    """One pod as the agent ships it: its labels and, per file (console, or a declared path), where it is."""

    pod: Pod
    labels: dict[str, str]
    files: dict[str, _File] = field(default_factory=dict)


def insert_url(base: str) -> str:
    query = urllib.parse.urlencode({"_stream_fields": ",".join(STREAM_FIELDS), "_msg_field": "_msg"})
    return f"{base.rstrip('/')}/insert/jsonline?{query}&_time_field=_time"


def parse_cri(line: str) -> tuple[str, str, str]:
    """``<RFC 3339> <stdout|stderr> <F|P> <message>`` -> (time, stream, message); a line not in that form is kept
    whole, stamped now."""
    parts = line.split(" ", 3)
    if len(parts) == 4 and parts[1] in ("stdout", "stderr"):
        return parts[0], parts[1], parts[3]
    return _now(), "", line


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _open_console(path: Path) -> int:
    return os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)


def _open_in_pod(fs: Path, path: str) -> int:
    dirname, _, base = path.lstrip("/").rpartition("/")
    dfd = podfs.open_dir_nofollow(fs, dirname)
    try:
        fd = os.open(base, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd)
    finally:
        os.close(dfd)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path}: not a regular file")
    return fd


class LogShipper:
    def __init__(self, cluster: str, base_url: str, registry: Registry, state_file: Path, api: Any = None) -> None:
        self.cluster = cluster
        self.url = insert_url(base_url)
        self.registry = registry
        self.state_file = state_file
        self.api = api  # kubernetes CoreV1Api: the namespace's project label
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._sources: dict[str, _Source] = {}
        self._held: list[dict[str, str]] = []
        self._projects: dict[str, str] = {}
        self._saved = self._load()
        self.shipped = 0

    # -- tracking ------------------------------------------------------------------------------------------
    def track(self, pod: Pod) -> None:
        """A pod set up by the watcher: ship its lines from now on (from the start of its files)."""
        labels = self._labels(pod)
        with self._lock:
            known = self._sources.get(pod.key)
            if known is not None and known.pod.uid == pod.uid:
                return
            source = _Source(pod, labels)
            saved = self._saved.get(pod.key) or {}
            if saved.get("uid") == pod.uid:
                source.files = {p: _File(*v) for p, v in (saved.get("files") or {}).items()}
            self._sources[pod.key] = source

    def drain(self, key: str) -> None:
        """A pod going away (its files are removed next): read the rest of its lines into memory."""
        with self._lock:
            source = self._sources.pop(key, None)
            if source is None:
                return
            for name in self._file_names(source):
                while True:
                    records, new = self._read(source, name, None)
                    source.files[name] = new
                    self._held.extend(records)
                    if not records:
                        break
            if len(self._held) > HELD_MAX_LINES:
                log.error("archive: %d held lines dropped (the store is down)", len(self._held) - HELD_MAX_LINES)
                del self._held[: len(self._held) - HELD_MAX_LINES]
            self._saved.pop(key, None)

    # -- the loop ------------------------------------------------------------------------------------------
    def run(self, interval: float = 0.5) -> None:
        backoff = interval
        while not self.stop.wait(backoff):
            for pod in self.registry.all():
                if pod.key not in self._sources:
                    self.track(pod)
            try:
                sent = self.ship_once()
            except OSError as exc:  # the store is down or refuses: nothing moved, the same lines go next time
                log.warning("archive: %s; retrying in %.1fs", exc, backoff)
                backoff = min(backoff * 2, 5.0)
                continue
            backoff = interval if sent < 1000 else 0.05

    def ship_once(self) -> int:
        """Send what is new; move the offsets on once the store took it. Returns the lines sent."""
        with self._lock:
            held = list(self._held)
            batch = list(held)
            moved: dict[tuple[str, str], tuple[str, _File]] = {}
            for key, source in self._sources.items():
                for name in self._file_names(source):
                    records, new = self._read(source, name, READ_BYTES)
                    if records or new != source.files.get(name):
                        batch.extend(records)
                        moved[(key, name)] = (source.pod.uid, new)
        if batch:
            self._send(batch)
        with self._lock:
            del self._held[: len(held)]
            for (key, name), (uid, new) in moved.items():
                source = self._sources.get(key)
                if source is not None and source.pod.uid == uid:
                    source.files[name] = new
            self._save()
        self.shipped += len(batch)
        return len(batch)

    def _send(self, records: list[dict[str, str]]) -> None:
        body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()
        req = urllib.request.Request(  # noqa: S310 - the configured store's URL
            self.url, data=body, method="POST", headers={"Content-Type": "application/stream+json"}
        )
        try:
            with urllib.request.urlopen(req, timeout=SEND_TIMEOUT) as resp:  # noqa: S310
                resp.read()
        except urllib.error.HTTPError as exc:
            raise OSError(f"the store answered {exc.code}") from exc

    # -- files ---------------------------------------------------------------------------------------------
    def _file_names(self, source: _Source) -> list[str]:
        info = KINDS.get(source.labels.get("kind", ""))
        return [CONSOLE, *(info.log_files if info is not None else DEFAULT_LOG_FILES)]

    def _open(self, source: _Source, name: str, rotated: bool) -> int:
        suffix = ".1" if rotated else ""
        if name == CONSOLE:
            return _open_console(source.pod.console_log.with_name(source.pod.console_log.name + suffix))
        return _open_in_pod(source.pod.fs, name + suffix)

    def _read(self, source: _Source, name: str, limit: int | None) -> tuple[list[dict[str, str]], _File]:
        """New whole lines of one file from its offset: the rest of a rotated file (``.1`` with the inode it
        had) first, then the current one."""
        at = source.files.get(name) or _File()
        try:
            fd = self._open(source, name, rotated=False)
        except OSError:
            return [], at  # not there (yet): a declared file the program never wrote
        try:
            inode = os.fstat(fd).st_ino
            if at.inode and inode != at.inode:
                records, rest = self._read_rotated(source, name, at, limit)
                if records:
                    return records, rest
                at = _File(inode, 0)
            records, offset = self._lines(fd, source, name, at.offset, limit)
            return records, _File(inode, offset)
        finally:
            os.close(fd)

    def _read_rotated(self, source: _Source, name: str, at: _File, limit: int | None) -> tuple[list[Any], _File]:
        try:
            fd = self._open(source, name, rotated=True)
        except OSError:
            return [], at
        try:
            if os.fstat(fd).st_ino != at.inode:
                return [], at
            records, offset = self._lines(fd, source, name, at.offset, limit)
            return records, _File(at.inode, offset)
        finally:
            os.close(fd)

    def _lines(
        self, fd: int, source: _Source, name: str, offset: int, limit: int | None
    ) -> tuple[list[dict[str, str]], int]:
        if os.fstat(fd).st_size < offset:
            offset = 0  # truncated in place
        data = os.pread(fd, limit or max(0, os.fstat(fd).st_size - offset), offset)
        end = data.rfind(b"\n") + 1
        records = []
        for raw in data[:end].splitlines():
            line = raw.decode("utf-8", errors="replace")
            if name == CONSOLE:
                ts, stream, msg = parse_cri(line)
                records.append({**source.labels, "source": CONSOLE, "stream": stream, "_time": ts, "_msg": msg})
            else:
                records.append({**source.labels, "source": name, "_time": _now(), "_msg": line})
        return records, offset + end

    # -- labels and state ------------------------------------------------------------------------------------
    def _labels(self, pod: Pod) -> dict[str, str]:
        labels = dict(pod.labels)
        return {
            "cluster": self.cluster,
            "namespace": pod.namespace,
            "project": self._project(pod.namespace),
            "workload": labels.get(WORKLOAD_LABEL, ""),
            "kind": labels.get(KIND_LABEL, ""),
            "pod": pod.name,
            "container": pod.containers[0] if pod.containers else "",
            "pod_uid": pod.uid,
        }

    def _project(self, namespace: str) -> str:
        """The namespace's project label (cached once found: provisioning writes it, nobody changes it)."""
        if namespace not in self._projects and self.api is not None:
            try:
                ns = self.api.read_namespace(namespace)
            except Exception as exc:  # noqa: BLE001 - an unlabelled line is still shipped; the next pod asks again
                log.warning("archive: namespace %s: %s", namespace, exc)
                return ""
            project = (ns.metadata.labels or {}).get(PROJECT_LABEL, "")
            if not project:
                return ""  # not provisioned (yet): ask again for its next pod
            self._projects[namespace] = project
        return self._projects.get(namespace, "")

    def _load(self) -> dict[str, Any]:
        with contextlib.suppress(OSError, ValueError):
            return dict(json.loads(self.state_file.read_text()))
        return {}

    def _save(self) -> None:
        state = {  # pods not tracked again yet after a restart keep their offsets; a drained pod's go
            **self._saved,
            **{
                key: {"uid": s.pod.uid, "files": {n: [f.inode, f.offset] for n, f in s.files.items()}}
                for key, s in self._sources.items()
            },
        }
        tmp = self.state_file.with_name(self.state_file.name + ".tmp")
        tmp.write_text(json.dumps(state))
        os.replace(tmp, self.state_file)
        self._saved = state
