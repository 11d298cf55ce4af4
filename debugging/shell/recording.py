"""Shell transcripts in asciicast v2, for projects whose owners turned recording on (``Project.record_shells``).

What is recorded is what the terminal showed: the pod's output (``"o"`` events) and the terminal's size changes
(``"r"``), with times relative to the start. Keystrokes are not (``"i"``): a password typed at a prompt is not
echoed, so it is not in the transcript either. The size is bounded (``DEBUG_RECORDING_MAX_BYTES``): past it the
recording stops with a last line saying so, and the session goes on. The transcript is written to the database
with the session (``SessionRecording``, by ``services.save_recording``) at each periodic re-check and when the shell
ends, so every worker serves it. Format: https://docs.asciinema.org/manual/asciicast/v2/
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.conf import settings

TRUNCATED = "\r\n[recording stopped: DEBUG_RECORDING_MAX_BYTES reached]\r\n"
DEFAULT_SIZE = (80, 24)


class Recorder:
    """Collects one shell's events in memory, bounded; ``cast()`` renders the asciicast file."""

    def __init__(self, *, title: str, max_bytes: int | None = None, started: float | None = None) -> None:
        self.title = title
        self.max_bytes = settings.DEBUG_RECORDING_MAX_BYTES if max_bytes is None else max_bytes
        self.started_wall = time.time()
        self.started = time.monotonic() if started is None else started
        self.size: tuple[int, int] | None = None
        self.events: list[str] = []
        self.bytes = 0
        self.truncated = False
        self.dirty = False

    def _add(self, kind: str, data: str) -> None:
        if self.truncated:
            return
        line = json.dumps([round(time.monotonic() - self.started, 6), kind, data], ensure_ascii=False)
        if self.bytes + len(line) + 1 > self.max_bytes:
            self.truncated = True
            line = json.dumps([round(time.monotonic() - self.started, 6), "o", TRUNCATED])
        self.events.append(line)
        self.bytes += len(line) + 1
        self.dirty = True

    def output(self, data: str) -> None:
        self._add("o", data)

    def resize(self, cols: int, rows: int) -> None:
        if self.size is None and not self.events:
            self.size = (cols, rows)  # the header's size: the terminal as it opened
            return
        self.size = self.size or (cols, rows)
        self._add("r", f"{cols}x{rows}")

    def header(self) -> dict[str, Any]:
        cols, rows = self.size or DEFAULT_SIZE
        return {
            "version": 2,
            "width": cols,
            "height": rows,
            "timestamp": int(self.started_wall),
            "title": self.title,
            "env": {"TERM": "xterm-256color"},
        }

    def cast(self) -> str:
        return "\n".join([json.dumps(self.header()), *self.events]) + "\n"


def parse_cast(text: str) -> tuple[dict[str, Any], list[list[Any]]]:
    """The header and events of an asciicast v2 file (``ValueError`` when it is not one)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError("empty recording")
    header = json.loads(lines[0])
    if not isinstance(header, dict) or header.get("version") != 2:
        raise ValueError("not asciicast v2")
    return header, [json.loads(line) for line in lines[1:]]
