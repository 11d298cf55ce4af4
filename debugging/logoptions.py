"""Log stream options from the websocket URL's query (the page's form and the CLI send the same names).

``tail=N`` (last N lines), ``since=S`` (seconds, or ``30s``/``10m``/``2h``/``1d``), ``timestamps=1`` (each
line's text starts with its RFC 3339 time, as ``kubectl logs --timestamps``; the ``ts`` field is always
sent), ``previous=1`` (the previous, terminated container), ``follow=0`` (what is there, then close 1000).

A resume (``{"type":"resume","after_seq":N}``) re-reads only what the client could have been shown: at most
``RESUME_MAX_SECONDS`` back and at most ``LOG_BUFFER_LINES`` lines, whatever ``N`` says.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from urllib.parse import parse_qs

from base.errors import Invalid
from debugging.streams import LOG_BUFFER_LINES

MAX_TAIL = 10_000
MAX_SINCE = 7 * 86400
RESUME_MAX_SECONDS = 600
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"(\d{1,7})([smhd]?)")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


@dataclass(frozen=True)
class LogOptions:
    tail: int | None = None
    since_seconds: int | None = None
    timestamps: bool = False
    previous: bool = False
    follow: bool = True

    def follower_kwargs(self) -> dict[str, bool]:
        """Only what differs from a follow (older follower implementations take no such arguments)."""
        extra: dict[str, bool] = {}
        if self.previous:
            extra["previous"] = True
        if not self.follow:
            extra["follow"] = False
        return extra


def _flag(query: dict[str, list[str]], name: str, default: bool) -> bool:
    if name not in query:
        return default
    value = query[name][-1].strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise Invalid.on(name, f"{name}={value!r}: use 1 or 0.")


def parse_log_options(raw_query: str) -> LogOptions:
    """``Invalid`` (close 4400) for a value out of range or not a number."""
    query = parse_qs(raw_query, keep_blank_values=True)
    tail = since = None
    if query.get("tail", [""])[-1].strip():
        value = query["tail"][-1].strip()
        if not value.isdigit() or not 0 <= int(value) <= MAX_TAIL:
            raise Invalid.on("tail", f"tail={value!r}: give a number of lines from 0 to {MAX_TAIL}.")
        tail = int(value)
    if query.get("since", [""])[-1].strip():
        value = query["since"][-1].strip().lower()
        found = _DURATION.fullmatch(value)
        if found is None or not 0 < int(found.group(1)) * _UNITS[found.group(2) or "s"] <= MAX_SINCE:
            raise Invalid.on("since", f"since={value!r}: give seconds (or 30s, 10m, 2h, 1d), at most 7 days.")
        since = int(found.group(1)) * _UNITS[found.group(2) or "s"]
    return LogOptions(
        tail=tail,
        since_seconds=since,
        timestamps=_flag(query, "timestamps", False),
        previous=_flag(query, "previous", False),
        follow=_flag(query, "follow", True),
    )


def resume_window(after_seq: int, now: float, streams: int) -> tuple[int, int, int]:
    """(skip lines stamped at or before this µs, sinceSeconds, tailLines per stream) for a resume after
    ``after_seq``, bounded to what the client could have seen."""
    now_us = int(now * 1_000_000)
    after = min(max(0, after_seq), now_us)
    since = min(RESUME_MAX_SECONDS, max(1, math.ceil(now - after / 1_000_000) + 2))
    floor = now_us - RESUME_MAX_SECONDS * 1_000_000
    return max(after, floor), since, max(1, LOG_BUFFER_LINES // max(1, streams))
