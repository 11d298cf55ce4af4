"""How well a name matches what was typed: exact, then prefix, then a word's prefix, then anywhere in it.

Pure (no Django): the search service ranks every source's names with it, the bench times it.
"""

from __future__ import annotations

import re
from enum import IntEnum

WORD_BREAKS = re.compile(r"[-_./:@\s]+")


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
    if any(word.startswith(query) for word in WORD_BREAKS.split(lowered)):
        return Rank.WORD
    return Rank.WITHIN


def best(names: tuple[str, ...], query: str) -> Rank | None:
    """The best rank among several names of one thing (a user's username, e-mail and full name)."""
    found = [r for r in (rank(n, query) for n in names if n) if r is not None]
    return min(found) if found else None
