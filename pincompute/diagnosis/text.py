"""Sentences the way a diagnosis says them: one line, one full stop, free text from elsewhere made a clause."""

from __future__ import annotations

import re
from collections.abc import Sequence

MAX_CLAUSE = 160
_BOUNDARY = re.compile(r"[.!?]+(\s+|$)")
_SPACE = re.compile(r"\s+")


def clause(text: object, limit: int = MAX_CLAUSE) -> str:
    """``text`` (a condition's message, a log line) as one clause: whitespace collapsed, its own sentence ends made
    semicolons, no final stop, at most ``limit`` characters (an ellipsis says it was cut)."""
    flat = _SPACE.sub(" ", str(text or "")).strip()
    flat = _BOUNDARY.sub(lambda m: "; " if m.end() < len(flat) else "", flat).strip().rstrip(".!?;:,").strip()
    flat = flat.replace('"', "'")
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return flat


def sentence(text: str) -> str:
    """``text`` with its first letter capital and one final full stop."""
    body = text.strip().rstrip(".")
    return (body[:1].upper() + body[1:] + ".") if body else ""


def names(items: Sequence[str], most: int = 3) -> str:
    """ "a, b, c and 2 more"."""
    shown = ", ".join(items[:most])
    rest = len(items) - most
    return f"{shown} and {rest} more" if rest > 0 else shown


def ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def is_one_sentence(text: str) -> bool:
    """One line, a capital first, one full stop at the end and no sentence boundary before it."""
    if not text or "\n" in text or not text.endswith(".") or not text[0].isupper():
        return False
    return _BOUNDARY.search(text[:-1]) is None
