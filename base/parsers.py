"""JSON request bodies the API can store and answer with: THE JSON parser of every API write.

Nested at most ``MAX_DEPTH`` deep (the bound of the YAML loader, ``pincompute.documents``): ``json.loads`` follows
nesting up to the interpreter's recursion limit and then raises ``RecursionError``, which DRF's parser let through
as a 500; 900 levels parse, and every later walk of the value (serializers, the error body) would recurse as deep.

JSON's ``"\\ud800"`` escape decodes to a lone surrogate: a Python string that UTF-8 cannot encode, so neither
PostgreSQL nor the JSON renderer can hold it (a 500 as soon as an answer names it, e.g. an error naming the
key). DRF's ``CharField`` refuses such values, but keys and free-form objects (labels, specs) pass unseen;
``refuse_unencodable`` refuses them all at parse time, by path. A surrogate pair (``"\\ud83d\\ude00"``) is one
character to ``json.loads`` and passes.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rest_framework import parsers

from base.errors import MAX_REPORTED, Invalid
from pincompute.documents import MAX_DEPTH
from pincompute.errors import FieldError


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


def depth_over(value: Any, max_depth: int) -> bool:
    """Whether ``value`` nests containers (objects, lists) more than ``max_depth`` deep: breadth first, no recursion,
    and no further than the first level past the limit."""
    level, depth = [value], 0
    while containers := [node for node in level if isinstance(node, dict | list)]:
        depth += 1
        if depth > max_depth:
            return True
        level = [item for node in containers for item in _items(node)]
    return False


def _items(node: dict[Any, Any] | list[Any]) -> Any:
    return node.values() if isinstance(node, dict) else node


# A surrogate's escape (\ud800-\udfff), the only way a JSON text can carry one. Where there is none the value is not
# walked: the walk of 30,000 keys made ~100,000 short-lived objects per request, and the process kept what they took.
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def _not_a_number(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON number")


def load_json(data: bytes, field: str) -> Any:
    """The JSON value ``data`` holds, UTF-8 text nested at most ``MAX_DEPTH`` deep with no character UTF-8 cannot
    encode; otherwise ``Invalid`` (400) on ``field`` saying which."""
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_not_a_number)
    except UnicodeDecodeError:
        raise Invalid("the body is not UTF-8 text", fields=[FieldError(field, "not UTF-8 text")]) from None
    except RecursionError:  # json.loads follows nesting up to the interpreter's recursion limit
        raise _too_deep(field) from None
    except ValueError as exc:
        raise Invalid(f"the body is not valid JSON: {exc}", fields=[FieldError(field, str(exc))]) from None
    if depth_over(value, MAX_DEPTH):
        raise _too_deep(field)
    if _ESCAPED_SURROGATE.search(data):  # strict UTF-8 holds none: only a "\ud800" escape makes one
        refuse_unencodable(value)  # a lone surrogate anywhere: a 400 by path, not a 500 later
    return value


def _too_deep(field: str) -> Invalid:
    return Invalid(
        f"the body is nested more than {MAX_DEPTH} levels deep (the limit)",
        fields=[FieldError(field, f"nested more than {MAX_DEPTH} levels deep")],
    )


class JSONParser(parsers.BaseParser):
    """THE JSON parser of every API write (``DEFAULT_PARSER_CLASSES``; the workload API's document parsers build on
    it): strict UTF-8 whatever ``charset`` the Content-Type claims, no NaN or Infinity, nested at most
    ``MAX_DEPTH`` deep, no lone surrogate. Its size is bounded before it runs (``base.bodies``). A refusal is a 400
    on ``field``."""

    media_type = "application/json"
    field = "body"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        return load_json(self.read(stream), self.field)

    def read(self, stream: Any) -> bytes:
        return stream.read() if stream is not None else b""
