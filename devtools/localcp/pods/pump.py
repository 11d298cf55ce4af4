"""The log pump: each pod's console log (CRI lines, served by kwok) and its /var/log/app.log.

Every line names its pod and counts on (``seq``) per pod, so two pods never show the same lines. At
most ``MAX_LINES_PER_SECOND`` console lines per cluster: with many pods each pod's interval grows.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import random
import re
import threading
import time
from pathlib import Path

from . import podfs
from .watch import OPT_OUT, Pod, Registry

log = logging.getLogger(__name__)
CONSOLE_MAX_BYTES = 4 * 1024 * 1024
APP_LOG_MAX_BYTES = 1024 * 1024
MAX_LINES_PER_SECOND = 400

_STARTUP = (
    ("stdout", 'level=info msg="starting" version=1.4.2 pid=1'),
    ("stdout", 'level=info msg="config loaded" source=/etc/app/config.yaml'),
    ("stdout", 'level=info msg="listening" addr=:8080'),
    ("stdout", 'level=info msg="ready"'),
)
_MESSAGES = (
    ("stdout", 'level=info msg="processed batch" items={n} latency_ms={ms}'),
    ("stdout", 'level=info msg="GET /healthz" status=200 duration_ms={ms}'),
    ("stdout", 'level=debug msg="cache refresh" entries={n}'),
    ("stderr", 'level=warn msg="slow upstream" latency_ms={ms}'),
)


def cri_line(stream: str, message: str, now: dt.datetime | None = None) -> str:
    now = now or dt.datetime.now(dt.UTC)
    ts = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond * 1000:09d}Z"
    return f"{ts} {stream} F {message}\n"


def append_console(path: Path, line: str) -> None:
    if path.exists() and path.stat().st_size > CONSOLE_MAX_BYTES:
        os.replace(path, path.with_name(path.name + ".1"))
    with path.open("a") as fh:
        fh.write(line)


def _last_seq(path: Path) -> int:
    """The seq of the last line of a console log, -1 for none."""
    try:
        with path.open("rb") as fh:
            fh.seek(max(0, fh.seek(0, os.SEEK_END) - 1024))
            found = re.findall(rb"\] seq=(\d+) ", fh.read())
    except OSError:
        return -1
    return int(found[-1]) if found else -1


class LogPump:
    def __init__(self, cluster: str, registry: Registry, pending_log: Path, interval: float = 1.0) -> None:
        self.cluster = cluster
        self.registry = registry
        self.interval = interval
        self.pending_log = pending_log
        self.stop = threading.Event()
        self._lock = threading.Lock()  # seq counters: the pump thread and the watcher's workers
        self._seq: dict[tuple[str, str], int] = {}
        self._rnd = random.Random()  # noqa: S311 - demo output, not crypto

    def run(self) -> None:
        self.pending_log.write_text(
            cri_line("stderr", f"[{self.cluster}] no log: this pod is not set up yet (or it is labelled {OPT_OUT})")
        )
        while not self.stop.is_set():
            pods = self.registry.running()
            period = max(self.interval, len(pods) / MAX_LINES_PER_SECOND)
            started = time.monotonic()
            for pod in pods:
                self.write(pod)
            self.stop.wait(max(0.05, period - (time.monotonic() - started)))

    def start(self, pod: Pod) -> None:
        """A new pod's first lines, as its program would print them starting (before it is Running)."""
        for stream, msg in _STARTUP:
            self._append(pod, self._next_seq(pod), stream, msg)

    def restarted(self, pod: Pod) -> None:
        """Its program ended on SIGTERM and started again (a container restart): the last line, then the first."""
        self._append(pod, self._next_seq(pod), "stderr", 'level=info msg="terminated" signal=SIGTERM')
        self.start(pod)

    def write(self, pod: Pod) -> None:
        seq = self._next_seq(pod)
        stream, tmpl = _MESSAGES[0] if seq % 5 else _MESSAGES[self._rnd.randrange(len(_MESSAGES))]
        self._append(pod, seq, stream, tmpl.format(n=self._rnd.randint(1, 500), ms=self._rnd.randint(1, 900)))

    def forget(self, key: str) -> None:
        with self._lock:
            self._seq = {k: v for k, v in self._seq.items() if k[0] != key}

    def _next_seq(self, pod: Pod) -> int:
        with self._lock:
            seq = self._seq.get((pod.key, pod.uid))
            if seq is None:  # a pod this process has not written for yet: go on from its log (a restart)
                seq = _last_seq(pod.console_log) + 1
            self._seq[(pod.key, pod.uid)] = seq + 1
            return seq

    def _append(self, pod: Pod, seq: int, stream: str, msg: str) -> None:
        now = dt.datetime.now(dt.UTC)
        try:
            append_console(pod.console_log, cri_line(stream, f"[{self.cluster}/{pod.key}] seq={seq} {msg}", now))
            stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
            podfs.append_app_log(pod.fs, f"{stamp} [{pod.key}] seq={seq} {msg}\n", APP_LOG_MAX_BYTES)
        except OSError as exc:  # the pod went away meanwhile, or its files were tampered with
            log.debug("log pump: %s: %s", pod.key, exc)
