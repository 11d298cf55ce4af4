"""Whole numbers typed by people (query parameters, form fields, item indexes): ASCII digits, bounded in length.

``str.isdigit`` is also true for "²" and other scripts' digits, which ``int`` refuses (or reads: "٤" is 4), and ``int``
refuses over 4,300 digits: an ``isdigit`` check before ``int`` is a 500 waiting for a hostile value.
"""

from __future__ import annotations


def whole_number(text: str, *, max_digits: int) -> int | None:
    """``text`` as an int when it is 1 to ``max_digits`` ASCII digits (no sign, space or ``_``), else None."""
    if 0 < len(text) <= max_digits and text.isascii() and text.isdigit():
        return int(text)
    return None
