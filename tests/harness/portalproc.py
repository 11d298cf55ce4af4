"""The portal as a real uvicorn process on the test database, for tests that need it served as production serves it
(a stopped Redis under it, a small connection pool, ...)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.harness.services import free_port

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def portal_process(env: Mapping[str, str], log_path: Path, timeout: float = 120) -> Iterator[tuple[str, int]]:
    """``uvicorn console.asgi:application`` with ``env``, its output in ``log_path``: (its URL, its pid) once /healthz
    answers; stopped (its process group) on exit."""
    port = free_port()
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "console.asgi:application",
                "--port",
                str(port),
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=dict(env),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + timeout
            while True:
                try:
                    httpx.get(f"{url}/healthz", timeout=1)
                    break
                except httpx.TransportError:
                    assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text()
                    time.sleep(0.2)
            yield url, proc.pid
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
