"""Log stream options from the websocket URL's query (the page's form and the CLI send the same names).

``tail=N`` (last N lines), ``since=S`` (seconds, or ``30s``/``10m``/``2h``/``1d``), ``timestamps=1`` (each
line's text starts with its RFC 3339 time, as ``kubectl logs --timestamps``; the ``ts`` field is always
sent), ``previous=1`` (the previous, terminated container), ``follow=0`` (what is there, then close 1000),
``include=RE`` / ``exclude=RE`` (server-side: only lines matching / not matching are sent; RE2 syntax, at most
``MAX_PATTERN`` characters, matched in linear time so no pattern can stall the worker), ``file=/abs/path`` (follow
a file inside the container with ``tail -F`` over exec instead of the console log, or with ``follow=0`` its last
lines with plain ``tail``; ``logs.files``).

A resume (``{"type":"resume","after_seq":N}``) re-reads only what the client could have been shown: at most
``RESUME_MAX_SECONDS`` back and at most ``LOG_BUFFER_LINES`` lines, whatever ``N`` says.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

import re2

from base.digits import whole_number
from base.errors import FieldError, Invalid
from debugging.logs.streams import LOG_BUFFER_LINES

MAX_TAIL = 10_000
MAX_SINCE = 7 * 86400
RESUME_MAX_SECONDS = 600
MAX_PATTERN = 200
MAX_PATH = 256
# An absolute path of plain segments: no shell metacharacter, space, quote or glob, no "." or ".." segment. It is
# passed to tail as one argv element (never through a shell), so this is about intent, not quoting.
_PATH = re.compile(r"(/[A-Za-z0-9_@+=,:.-]+)+")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"([0-9]{1,7})([smhd]?)")  # ASCII digits: \d is also "٤" (which int reads as 4)
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


@dataclass(frozen=True)
class LogOptions:
    tail: int | None = None
    since_seconds: int | None = None
    timestamps: bool = False
    previous: bool = False
    follow: bool = True
    include: Any = None  # a compiled RE2 pattern
    exclude: Any = None
    file: str | None = None

    def wanted(self, text: str) -> bool:
        """The server-side include/exclude filter."""
        if self.include is not None and self.include.search(text) is None:
            return False
        return self.exclude is None or self.exclude.search(text) is None

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


def compile_pattern(name: str, value: str) -> Any:
    """An RE2 pattern (linear-time matching, bounded memory); ``Invalid`` for a long or unsupported one."""
    if len(value) > MAX_PATTERN:
        raise Invalid.on(name, f"{name}: at most {MAX_PATTERN} characters.")
    options = re2.Options()
    options.max_mem, options.log_errors = 1 << 20, False
    try:
        return re2.compile(value, options)
    except re2.error as exc:
        why = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise Invalid.on(name, f"{name}={value[:40]!r} is not a pattern RE2 accepts ({why}).") from None


def valid_file_path(value: str) -> str:
    """An absolute file path to follow; ``Invalid`` for anything else."""
    if len(value) > MAX_PATH or _PATH.fullmatch(value) is None:
        raise Invalid.on("file", f"file={value[:60]!r}: give an absolute path of letters, digits and ._-@+=,: only.")
    if any(part in (".", "..") for part in value.split("/")):
        raise Invalid.on("file", "file: no '.' or '..' segments.")
    return value


def _shown(value: str) -> str:
    """A query value for a message: a hostile one of thousands of characters by its start and length."""
    return repr(value) if len(value) <= 40 else f"{value[:20]!r}... ({len(value)} characters)"


def _tail(query: dict[str, list[str]]) -> int | None:
    value = query.get("tail", [""])[-1].strip()
    if not value:
        return None
    tail = whole_number(value, max_digits=len(str(MAX_TAIL)))
    if tail is None or tail > MAX_TAIL:
        raise Invalid.on("tail", f"tail={_shown(value)}: give a number of lines from 0 to {MAX_TAIL}.")
    return tail


def _since(query: dict[str, list[str]]) -> int | None:
    value = query.get("since", [""])[-1].strip().lower()
    if not value:
        return None
    found = _DURATION.fullmatch(value)
    since = int(found.group(1)) * _UNITS[found.group(2) or "s"] if found else None
    if since is None or not 0 < since <= MAX_SINCE:
        raise Invalid.on("since", f"since={_shown(value)}: give seconds (or 30s, 10m, 2h, 1d), at most 7 days.")
    return since


def parse_log_options(raw_query: str) -> LogOptions:
    """``Invalid`` (close 4400) for a value out of range or not a number, one field error per bad option (a page
    marks each of its inputs)."""
    query = parse_qs(raw_query, keep_blank_values=True)
    problems: list[FieldError] = []

    def checked(read: Callable[[], Any]) -> Any:
        try:
            return read()
        except Invalid as exc:
            problems.extend(exc.fields)
            return None

    path = query.get("file", [""])[-1].strip()
    found = {
        "tail": checked(lambda: _tail(query)),
        "since_seconds": checked(lambda: _since(query)),
        "timestamps": checked(lambda: _flag(query, "timestamps", False)),
        "previous": checked(lambda: _flag(query, "previous", False)),
        "follow": checked(lambda: _flag(query, "follow", True)),
        **{
            name: checked(
                lambda name=name: compile_pattern(name, query[name][-1]) if query.get(name, [""])[-1] else None
            )
            for name in ("include", "exclude")
        },
        "file": checked(lambda: valid_file_path(path) if path else None),
    }
    if problems:
        raise Invalid(" ".join(p.message for p in problems), fields=problems)
    return LogOptions(**found)


def resume_window(after_seq: int, now: float, streams: int) -> tuple[int, int, int]:
    """(skip lines stamped at or before this µs, sinceSeconds, tailLines per stream) for a resume after
    ``after_seq``, bounded to what the client could have seen."""
    now_us = int(now * 1_000_000)
    after = min(max(0, after_seq), now_us)
    since = min(RESUME_MAX_SECONDS, max(1, math.ceil(now - after / 1_000_000) + 2))
    floor = now_us - RESUME_MAX_SECONDS * 1_000_000
    return max(after, floor), since, max(1, LOG_BUFFER_LINES // max(1, streams))
