"""JSON request bodies the API can store and answer with.

JSON's ``"\\ud800"`` escape decodes to a lone surrogate: a Python string that UTF-8 cannot encode, so neither
PostgreSQL nor the JSON renderer can hold it (a 500 as soon as an answer names it, e.g. an error naming the
key). DRF's ``CharField`` refuses such values, but keys and free-form objects (labels, specs) pass unseen;
``refuse_unencodable`` refuses them all at parse time, by path. A surrogate pair (``"\\ud83d\\ude00"``) is one
character to ``json.loads`` and passes.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, parsers

from base.errors import Invalid

MAX_REPORTED = 20  # paths named in one answer: enough to fix, never a body as large as the request


def _bad_character(text: str) -> str | None:
    """DRF's own message for a value holding a surrogate; None when UTF-8 can encode ``text``."""
    if text.isascii():
        return None
    lone = next((c for c in text if "\ud800" <= c <= "\udfff"), None)
    return None if lone is None else f"Surrogate characters are not allowed: U+{ord(lone):X}."


def printable(text: str) -> str:
    """``text`` with every character UTF-8 cannot encode written as its escape (``\\ud800``)."""
    return text if text.isascii() else text.encode("utf-8", "backslashreplace").decode("utf-8")


def _children(path: str, value: Any) -> list[tuple[str, Any, bool]]:
    """(path, item, is_key) of a parsed JSON value's keys and items, in document order."""
    if isinstance(value, dict):
        out: list[tuple[str, Any, bool]] = []
        for key, item in value.items():
            key_path = f"{path}.{printable(str(key))}" if path else printable(str(key))
            out += [(key_path, key, True), (key_path, item, False)]
        return out
    if isinstance(value, list):
        return [(f"{path}[{i}]", item, False) for i, item in enumerate(value)]
    return []


def unencodable(data: Any) -> dict[str, str]:
    """Path -> message of each key or string (at most ``MAX_REPORTED``) that UTF-8 cannot encode. Iterative:
    ``json.loads`` nests as deep as the recursion limit allows."""
    found: dict[str, str] = {}
    pending: list[tuple[str, Any, bool]] = [("", data, False)]
    while pending and len(found) < MAX_REPORTED:
        path, value, is_key = pending.pop()
        problem = _bad_character(value) if isinstance(value, str) else None
        if problem:
            found.setdefault(path, problem)
            if is_key:
                pending.pop()  # the key's value, next on the stack: named by the key already
        elif not is_key:
            pending.extend(reversed(_children(path, value)))
    return found


def refuse_unencodable(data: Any) -> None:
    """``Invalid`` (400) naming each key or string of ``data`` that is not text."""
    problems = unencodable(data)
    if problems:
        raise Invalid.on_fields(problems)


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser; a body holding a lone surrogate anywhere is a 400 naming its path, and one nested
    deeper than the parser can follow a 400 too (``json.loads`` raises RecursionError, not ValueError)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - nested too deeply") from None
        refuse_unencodable(data)
        return data
