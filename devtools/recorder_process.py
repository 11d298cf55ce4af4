"""The history recorder (``manage.py record_history``) as a child process, and a supervisor that starts it again
when it exits (it does, on purpose, when it loses its lease), as Kubernetes would: the dev command and the tests."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
log = logging.getLogger("devtools.recorder")


class RecorderProcess:
    """One recorder with its log file; ``lease_name`` lets a test run its own election on the shared host."""

    def __init__(
        self,
        log_path: Path,
        *,
        identity: str,
        lease_name: str = "pinconsole-history-recorder",
        lease_duration: float = 10.0,
        interval: float = 1.0,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.log_path, self.identity, self.env = log_path, identity, dict(env or os.environ)
        self.args = [
            sys.executable,
            "manage.py",
            "record_history",
            "--identity",
            identity,
            "--lease-name",
            lease_name,
            "--lease-duration",
            str(lease_duration),
            "--interval",
            str(interval),
        ]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> RecorderProcess:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as out:
            self.proc = subprocess.Popen(self.args, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT)
        return self

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def leading(self) -> bool:
        return f"recorder {self.identity} leading" in self.log()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no lease release, no last pass (a crash)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(30)

    def stop(self, timeout: float = 60) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(10)


class RecorderSupervisor:
    """Keeps one recorder running (a backoff up to ``max_backoff`` seconds between starts)."""

    def __init__(self, log_dir: Path, max_backoff: float = 30) -> None:
        self.recorder = RecorderProcess(log_dir / "recorder.log", identity=f"dev-{os.getpid()}").start()
        self.max_backoff = max_backoff
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="recorder-supervisor", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        backoff, started = 1.0, time.monotonic()
        while not self._stop.wait(1.0):
            if self.recorder.alive():
                if time.monotonic() - started > 60:
                    backoff = 1.0
                continue
            log.warning("the history recorder exited; starting it again in %.0fs", backoff)
            if self._stop.wait(backoff):
                return
            self.recorder.start()
            backoff, started = min(backoff * 2, self.max_backoff), time.monotonic()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.recorder.stop()
