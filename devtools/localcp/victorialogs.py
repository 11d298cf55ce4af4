"""VictoriaLogs, the log archive of the local stack: one process on loopback with its own data dir.

The dev command and the test harness each start one (the chart points at an existing one); the pod supervisors
ship every pod's lines to it (``pods/ship.py``) and the portal reads it (``debugging/logs/archive.py``). The binary
is built from its pinned Go module by ``build_binaries.sh victoria-logs`` (``binaries.victoria_logs``).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

from . import binaries


class ArchiveFailed(RuntimeError):
    """VictoriaLogs did not start (the message ends with its log's tail)."""


class VictoriaLogs:
    """``start()`` and ``stop()`` may be called again (a restart keeps the data dir and the port)."""

    def __init__(self, data_dir: Path, port: int, *, retention: str = "7d", build_missing: bool = True) -> None:
        self.data_dir = Path(data_dir)
        self.port = port
        self.retention = retention
        self.build_missing = build_missing
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_file(self) -> Path:
        return self.data_dir / "victoria-logs.log"

    def argv(self) -> list[str]:
        return [
            str(binaries.victoria_logs(build_missing=self.build_missing)),
            f"-storageDataPath={self.data_dir / 'data'}",
            f"-httpListenAddr=127.0.0.1:{self.port}",
            f"-retentionPeriod={self.retention}",
            "-loggerLevel=WARN",
        ]

    def start(self, timeout: float = 30) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        argv = self.argv()
        with self.log_file.open("ab") as log:
            self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while not self.healthy():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = self.log_file.read_text(errors="replace")[-2000:]
                raise ArchiveFailed(f"victoria-logs did not answer on {self.url} within {timeout:.0f}s:\n{tail}")
            time.sleep(0.1)

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/health", timeout=1) as resp:  # noqa: S310 - loopback http
                return bool(resp.status == 200)
        except OSError:
            return False

    def stop(self, timeout: float = 20) -> None:
        """SIGTERM: VictoriaLogs flushes what it accepted to disk before it exits."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


def free_port(preferred: int = 0) -> int:
    """``preferred`` when it is free, else any free loopback port."""
    for port in (preferred, 0) if preferred else (0,):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(sock.getsockname()[1])
    raise OSError("no free port")
