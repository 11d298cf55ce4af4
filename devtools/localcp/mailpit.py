"""Mailpit, the local stack's SMTP server: one process on loopback (SMTP and its web page and API), its own
database file. The dev command and the test harness each start one; the portal mails to it (``EMAIL_HOST`` /
``EMAIL_PORT``) and the tests read the mails through its API (``GET /api/v1/messages``). Built from its pinned Go
module by ``build_binaries.sh mailpit`` (``binaries.mailpit``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

from . import binaries


class MailpitFailed(RuntimeError):
    """Mailpit did not start (the message ends with its log's tail)."""


class Mailpit:
    """``start()`` and ``stop()`` may be called again (a restart keeps the data dir and the ports)."""

    def __init__(self, data_dir: Path, smtp_port: int, http_port: int, *, build_missing: bool = True) -> None:
        self.data_dir = Path(data_dir)
        self.smtp_port, self.http_port = smtp_port, http_port
        self.build_missing = build_missing
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Its web page (the dev banner links it) and API base."""
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def log_file(self) -> Path:
        return self.data_dir / "mailpit.log"

    def env(self) -> dict[str, str]:
        """The portal's settings that send mail here."""
        return {"EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(self.smtp_port), "MAILPIT_URL": self.url}

    def argv(self) -> list[str]:
        return [
            str(binaries.mailpit(build_missing=self.build_missing)),
            f"--smtp=127.0.0.1:{self.smtp_port}",
            f"--listen=127.0.0.1:{self.http_port}",
            f"--database={self.data_dir / 'mailpit.db'}",
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
                raise MailpitFailed(f"mailpit did not answer on {self.url} within {timeout:.0f}s:\n{tail}")
            time.sleep(0.1)

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/readyz", timeout=1) as resp:  # noqa: S310 - loopback http
                return bool(resp.status == 200)
        except OSError:
            return False

    def messages(self) -> list[dict[str, Any]]:
        """Every mail it holds, newest first (``ID``, ``To``, ``Subject``, ``Snippet``...)."""
        with urllib.request.urlopen(f"{self.url}/api/v1/messages?limit=500", timeout=10) as resp:  # noqa: S310
            return list(json.load(resp)["messages"])

    def message(self, message_id: str) -> dict[str, Any]:
        """One mail in full (``Text``, ``HTML``, headers...)."""
        with urllib.request.urlopen(f"{self.url}/api/v1/message/{message_id}", timeout=10) as resp:  # noqa: S310
            return dict(json.load(resp))

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
