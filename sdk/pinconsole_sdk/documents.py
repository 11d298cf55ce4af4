"""Workload documents read from files (``apply -f``, ``delete -f``): bounded reads, and a YAML loader whose every
value can be sent as JSON.

A file (or stdin) is read up to ``MAX_BYTES``, the most the API accepts in one body: ``-f /dev/zero`` or a FIFO
that never ends is refused once it has said more, never read until memory runs out. The text must be UTF-8.

PyYAML's safe loader raises a plain ``ValueError`` for a value it resolves but cannot build (an impossible date
``2020-13-45``, an integer of more than 4300 digits) and builds values JSON cannot carry (infinity and NaN,
``!!binary`` bytes, integers too long to print, lone surrogates from ``"\\ud800"`` escapes, dates). Each is refused
here naming its line, as the portal does for a YAML body; a valid date or time is sent as the text it was written
as. A document must also fit ``MAX_BYTES`` once encoded as JSON: aliases (``*name``) can expand a small file into
a huge body.

The portal's bounded loader is ``pincompute.documents``; this is a copy of its value checks on purpose: the SDK
installs on its own and speaks only the public API, so it imports nothing of the portal or the platform library.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 512 * 1024  # the API refuses a larger body (the portal's ``pincompute.documents.MAX_BYTES``)
MAX_DEPTH = 100  # deeper is refused before PyYAML's recursive composer runs out of stack
MAX_INTEGER_DIGITS = 4300  # as json: Python neither parses nor prints a longer integer
_TOO_BIG = 10**MAX_INTEGER_DIGITS
_INT = "tag:yaml.org,2002:int"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_KINDS = {_TIMESTAMP: "date or time", _INT: "integer", "tag:yaml.org,2002:float": "number"}


class DocumentError(ValueError):
    """A file that cannot be read as workload documents; the message names the file and, when known, the line."""


class _Refused(yaml.YAMLError):
    pass


def _where(node: Any) -> str:
    mark = node.start_mark
    return f"line {mark.line + 1}, column {mark.column + 1}"


def _unreadable(node: Any, reason: str) -> str:
    """Why a scalar cannot be sent, without the scalar itself when it is long (thousands of digits)."""
    shown = str(node.value)
    shown = shown if len(shown) <= 40 else f"{shown[:20]}..."
    kind = _KINDS.get(node.tag, "value")
    return f"{_where(node)}: {shown} is not a valid {kind} ({reason}); quote it to keep it as text"


def _text(value: str, node: Any) -> str:
    """``value`` as UTF-8 can hold it: escaped surrogate pairs joined (as JSON does); a lone one is refused."""
    if value.isascii():
        return value
    joined = value.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
    lone = next((c for c in joined if "\ud800" <= c <= "\udfff"), None)
    if lone is not None:
        raise _Refused(f"{_where(node)}: \\u{ord(lone):04x} is half of a surrogate pair, not a character")
    return joined


class _Loader(yaml.SafeLoader):
    """The safe loader, bounded in depth, with every value checked as it is built."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise _Refused(f"line {mark.line + 1}: nested more than {MAX_DEPTH} levels deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            value = super().construct_object(node, deep)  # type: ignore[no-untyped-call]
        except (ValueError, OverflowError) as exc:  # a scalar PyYAML resolved but cannot build
            reason = f"more than {MAX_INTEGER_DIGITS} digits" if node.tag == _INT else str(exc)
            raise _Refused(_unreadable(node, reason)) from None
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and abs(value) >= _TOO_BIG:  # hex and base 60 are built at any size
            raise _Refused(_unreadable(node, f"more than {MAX_INTEGER_DIGITS} digits"))
        if isinstance(value, float) and not math.isfinite(value):
            raise _Refused(_unreadable(node, "JSON has no infinity or NaN"))
        if isinstance(value, bytes):
            raise _Refused(f"{_where(node)}: a !!binary value cannot be sent as JSON; give it as base64 text")
        if isinstance(value, str):
            return _text(value, node)
        return value

    def construct_timestamp_text(self, node: Any) -> str:
        """A date or time as the text it was written as (JSON has no dates); an impossible one is refused."""
        self.construct_yaml_timestamp(node)  # raises ValueError for 2020-13-45, named by construct_object
        return str(node.value)


_Loader.add_constructor(_TIMESTAMP, _Loader.construct_timestamp_text)


EXTENSIONS = (".yaml", ".yml", ".json")  # what apply -f DIR reads, as kubectl


def expand_paths(names: list[str], *, recursive: bool = False) -> list[str]:
    """``names`` with each directory replaced by its ``EXTENSIONS`` files, sorted (and those of its subdirectories,
    walked in order, with ``recursive``); ``-`` (stdin) and files as given. A directory without one is refused."""
    found: list[str] = []
    for name in names:
        if name == "-" or not os.path.isdir(name):
            found.append(name)
            continue
        root = Path(name)
        walked = sorted(root.rglob("*") if recursive else root.iterdir())
        files = [str(p) for p in walked if p.suffix.lower() in EXTENSIONS and p.is_file()]
        if not files:
            raise DocumentError(
                f"{name}: no {', '.join(EXTENSIONS)} file in it{'' if recursive else ' (-R reads its subdirectories)'}"
            )
        found += files
    return found


def read_source(name: str, stdin: Any) -> bytes:
    """At most ``MAX_BYTES`` of the file ``name`` (``-``: ``stdin``); ``DocumentError`` when it holds more.
    ``OSError`` when it cannot be read."""
    if name == "-":
        source = getattr(stdin, "buffer", stdin)
        data = source.read(MAX_BYTES + 1)
        if isinstance(data, str):  # a text stream without a buffer (tests)
            data = data.encode("utf-8", "surrogateescape")
    else:
        with open(name, "rb") as file:
            data = file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        what = "stdin" if name == "-" else name
        raise DocumentError(f"{what} is larger than {MAX_BYTES} bytes, the most the API accepts in one document")
    return bytes(data)


def load_all(data: bytes, name: str) -> list[Any]:
    """Each YAML (or JSON) document of ``data``; ``DocumentError`` naming ``name`` and the line otherwise."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1]
        raise DocumentError(f"{name} is not UTF-8 text (byte {exc.start} is {bad!r})") from None
    loader: Any = _Loader(text)  # PyYAML's stubs leave its loader's methods untyped
    try:
        documents = []
        while loader.check_data():
            documents.append(loader.get_data())
        return documents
    except _Refused as exc:
        raise DocumentError(f"{name}: {exc}") from None
    except yaml.YAMLError as exc:
        raise DocumentError(f"{name} is not valid YAML: {yaml_problem(exc)}") from None
    except RecursionError:
        raise DocumentError(f"{name}: nested too deeply") from None
    finally:
        loader.dispose()


def yaml_problem(exc: yaml.YAMLError) -> str:
    """PyYAML's error on one line: where, what, and what it was parsing (its ``str`` spans several lines with a
    caret under a copy of the source line)."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return " ".join(str(exc).split())
    where = f"line {exc.problem_mark.line + 1}, column {exc.problem_mark.column + 1}: " if exc.problem_mark else ""
    problem = exc.problem or "cannot be parsed"
    context = ""
    if exc.context:
        start = exc.context_mark
        at = f" that starts at line {start.line + 1}, column {start.column + 1}" if start is not None else ""
        context = f" ({exc.context}{at})"
    return f"{where}{problem}{context}"


def json_size_over(value: Any, limit: int = MAX_BYTES) -> bool:
    """Whether ``value`` encoded as the SDK sends it (compact JSON, UTF-8) is over ``limit`` bytes; stops as soon
    as it is, so a document of aliases that expands exponentially is not encoded whole."""
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    size = 0
    try:
        for chunk in encoder.iterencode(value):
            size += len(chunk.encode("utf-8", "surrogatepass"))
            if size > limit:
                return True
    except RecursionError:
        return True
    return False
