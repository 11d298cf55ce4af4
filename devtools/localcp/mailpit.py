"""Mailpit, the local stack's SMTP server: one process on loopback (SMTP and its web page and API), its own
database file. The dev command and the test harness each start one; the portal mails to it (``EMAIL_HOST`` /
``EMAIL_PORT``) and the tests read the mails through its API (``GET /api/v1/messages``). Built from its pinned Go
module by ``build_binaries.sh mailpit`` (``binaries.mailpit``)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from . import binaries
from .loopback_service import LoopbackService


class MailpitFailed(RuntimeError):
    """Mailpit did not start (the message ends with its log's tail)."""


class Mailpit(LoopbackService):
    """``start()`` and ``stop()`` may be called again (a restart keeps the data dir and the ports)."""

    program, health_path, failure = "mailpit", "/readyz", MailpitFailed

    def __init__(self, data_dir: Path, smtp_port: int, http_port: int, *, build_missing: bool = True) -> None:
        self.data_dir = Path(data_dir)
        self.smtp_port, self.http_port = smtp_port, http_port
        self.build_missing = build_missing

    @property
    def url(self) -> str:
        """Its web page (the dev banner links it) and API base."""
        return f"http://127.0.0.1:{self.http_port}"

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

    def messages(self) -> list[dict[str, Any]]:
        """Every mail it holds, newest first (``ID``, ``To``, ``Subject``, ``Snippet``...)."""
        with urllib.request.urlopen(f"{self.url}/api/v1/messages?limit=500", timeout=10) as resp:  # noqa: S310
            return list(json.load(resp)["messages"])

    def message(self, message_id: str) -> dict[str, Any]:
        """One mail in full (``Text``, ``HTML``, headers...)."""
        with urllib.request.urlopen(f"{self.url}/api/v1/message/{message_id}", timeout=10) as resp:  # noqa: S310
            return dict(json.load(resp))
