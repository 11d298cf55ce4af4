"""Checks of short free text people read in lists and the audit log (names, teams, cost centers).

Unicode's bidirectional controls (U+202A-U+202E, U+2066-U+2069) and other invisible format characters reorder or
hide what follows them when displayed: a token named ``ci<U+202E>txt.exe`` shows as another name on the audit page
(the "Trojan Source" trick). Right-to-left *text* is fine; the controls that override its order are refused.
"""

from __future__ import annotations

import unicodedata

ALLOWED_FORMAT = {"\u200d"}  # the zero-width joiner: part of emoji sequences and some scripts' spelling


def hidden_character(value: str) -> str | None:
    """Why ``value`` cannot be shown as it reads (its first invisible format or control character), or None."""
    for char in value:
        category = unicodedata.category(char)
        if (category == "Cf" and char not in ALLOWED_FORMAT) or (category == "Cc" and char not in "\t"):
            name = unicodedata.name(char, "a control character")
            return f"Remove the invisible character U+{ord(char):04X} ({name}): it changes how the text displays."
    return None
