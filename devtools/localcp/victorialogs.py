"""VictoriaLogs, the log archive of the local stack: one process on loopback with its own data dir.

The dev command and the test harness each start one (the chart points at an existing one); the pod supervisors
ship every pod's lines to it (``pods/ship.py``) and the portal reads it (``debugging/logs/archive.py``). The binary
is built from its pinned Go module by ``build_binaries.sh victoria-logs`` (``binaries.victoria_logs``).
"""

from __future__ import annotations

from pathlib import Path

from . import binaries
from .loopback_service import LoopbackService


class ArchiveFailed(RuntimeError):
    """VictoriaLogs did not start (the message ends with its log's tail)."""


class VictoriaLogs(LoopbackService):
    """``start()`` and ``stop()`` may be called again (a restart keeps the data dir and the port)."""

    program, health_path, failure = "victoria-logs", "/health", ArchiveFailed

    def __init__(self, data_dir: Path, port: int, *, retention: str = "7d", build_missing: bool = True) -> None:
        self.data_dir = Path(data_dir)
        self.port = port
        self.retention = retention
        self.build_missing = build_missing

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def argv(self) -> list[str]:
        return [
            str(binaries.victoria_logs(build_missing=self.build_missing)),
            f"-storageDataPath={self.data_dir / 'data'}",
            f"-httpListenAddr=127.0.0.1:{self.port}",
            f"-retentionPeriod={self.retention}",
            "-loggerLevel=WARN",
        ]
