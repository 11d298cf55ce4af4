"""One process of the local stack that serves HTTP on loopback (VictoriaLogs, Prometheus, Mailpit): started in its own
session with its log in its data dir, ready once its health path answers 200, stopped with SIGTERM (it flushes what it
holds) and SIGKILL after a grace. ``start()`` and ``stop()`` may be called again: a restart keeps the data dir and the
ports."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.request
from abc import ABC, abstractmethod
from pathlib import Path
from typing import ClassVar


class LoopbackService(ABC):
    program: ClassVar[str]  # its name in messages and its log file's
    health_path: ClassVar[str]  # answers 200 once it serves
    failure: ClassVar[type[RuntimeError]]  # raised when it does not start (the message ends with its log's tail)

    data_dir: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    @abstractmethod
    def url(self) -> str:
        """Its HTTP base (loopback)."""

    @property
    def log_file(self) -> Path:
        return self.data_dir / f"{self.program}.log"

    @abstractmethod
    def argv(self) -> list[str]:
        """Its command line."""

    def prepare(self) -> None:
        """What the process needs on disk before it starts (its data dir; a subclass adds its config)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)

    def start(self, timeout: float = 30) -> None:
        self.prepare()
        argv = self.argv()
        with self.log_file.open("ab") as log:
            self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while not self.healthy():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = self.log_file.read_text(errors="replace")[-2000:]
                raise self.failure(f"{self.program} did not answer on {self.url} within {timeout:.0f}s:\n{tail}")
            time.sleep(0.1)

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}{self.health_path}", timeout=1) as resp:  # noqa: S310 - loopback
                return bool(resp.status == 200)
        except OSError:
            return False

    def stop(self, timeout: float = 20) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
