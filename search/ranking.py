"""How well a name matches what was typed: exact, then prefix, then a word's prefix, then anywhere in it.

Pure (no Django): the search service ranks every source's names with it, the bench times it.
"""

from __future__ import annotations

import functools
import re
from enum import IntEnum

BREAK_CHARS = r"-_./:@\s"
WORD_BREAKS = re.compile(f"[{BREAK_CHARS}]+")


class Rank(IntEnum):
    EXACT = 0
    PREFIX = 1
    WORD = 2  # a word of the name (split at - _ . / : @ and spaces) starts with the query
    WITHIN = 3


def rank(name: str, query: str) -> Rank | None:
    """``query`` must be lower-case (the service lowers it once); None when ``name`` does not hold it."""
    lowered = name.lower()
    at = lowered.find(query)
    if at < 0:
        return None
    if at == 0:
        return Rank.EXACT if len(lowered) == len(query) else Rank.PREFIX
    word_start = _word_start(query)
    if word_start is not None and word_start.search(lowered, at - 1):
        return Rank.WORD
    return Rank.WITHIN


@functools.lru_cache(maxsize=256)
def _word_start(query: str) -> re.Pattern[str] | None:
    """Where ``query`` follows a word break (one C-level search: an admin's search ranks 100k pod names, and
    splitting each into words cost most of it). None when the query holds a break itself: no word can start with
    it then, since words hold none."""
    if WORD_BREAKS.search(query):
        return None
    return re.compile(f"(?<=[{BREAK_CHARS}]){re.escape(query)}")


def best(names: tuple[str, ...], query: str) -> Rank | None:
    """The best rank among several names of one thing (a user's username, e-mail and full name)."""
    found = [r for r in (rank(n, query) for n in names if n) if r is not None]
    return min(found) if found else None
