"""THE bounded YAML loader: a document as a user sends it (YAML or JSON text), read with bounded time and memory.

PyYAML's safe loader already refuses arbitrary tags; on top of it this loader refuses aliases (a "billion
laughs" document expands aliases into exponential memory), and bounds the text size, the nesting depth
and the number of nodes, all before anything is built. The result must be one object (a mapping).

Each value is checked as it is built, so a refusal names its line: PyYAML raises a plain ``ValueError`` for an
impossible date (``2001-02-30``) or an integer of more than 4300 digits, builds hex and base-60 integers of any
size (which Python then refuses to print), and turns ``"\\ud800"`` escapes into lone surrogates, which are not
text (UTF-8 cannot encode them); an escaped surrogate pair (``"\\ud83d\\ude00"``) is joined as JSON does.

Here rather than in the portal so that every reader of a user's document, portal (``workloads``: pages, the API's
YAML parser) or platform library, uses the same bounds; the SDK (``sdk/``) installs on its own and keeps its own
reader of files (``pinconsole_sdk.documents``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml
from yaml._yaml import CParser
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from pincompute.errors import FieldError, Invalid

MAX_BYTES = 512 * 1024
MAX_DEPTH = 40
MAX_NODES = 20_000
MAX_INTEGER_DIGITS = 4300  # as json.loads: Python parses and prints no longer integer
FIELD = "document"
_TOO_BIG = 10**MAX_INTEGER_DIGITS
_INT = "tag:yaml.org,2002:int"
_KINDS = {"tag:yaml.org,2002:timestamp": "date or time", _INT: "integer", "tag:yaml.org,2002:float": "number"}


class _Refused(yaml.YAMLError):
    pass


class _Bounds(Composer):
    """PyYAML's composer, with the bounds checked as each node is composed and each value built."""

    _depth = 0
    _nodes = 0
    check_event: Callable[..., bool]  # from the parser each loader below mixes in (libyaml's or PyYAML's)
    peek_event: Callable[[], Any]

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise _Refused(f"line {mark.line + 1}: YAML aliases (*name) are not accepted")
        self._depth += 1
        self._nodes += 1
        if self._depth > MAX_DEPTH:
            raise _Refused(f"nested more than {MAX_DEPTH} levels deep")
        if self._nodes > MAX_NODES:
            raise _Refused(f"more than {MAX_NODES} values")
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            value = super().construct_object(node, deep)  # type: ignore[misc]
        except (ValueError, OverflowError) as exc:  # a scalar PyYAML resolved but cannot build
            reason = f"more than {MAX_INTEGER_DIGITS} digits" if node.tag == _INT else str(exc)
            raise _Refused(_unreadable(node, reason)) from None
        if isinstance(value, int) and abs(value) >= _TOO_BIG:  # hex and base 60 are built at any size
            raise _Refused(_unreadable(node, f"more than {MAX_INTEGER_DIGITS} digits"))
        if isinstance(value, str):
            return _text(value, node)
        return value


class _FastLoader(_Bounds, CParser, SafeConstructor, Resolver):
    """libyaml scans and parses: five times faster than PyYAML's Python reader and scanner (60 against 250 ms for a
    100 KB document), which matters for a body any caller can send. The composer stays PyYAML's Python one, listed
    before ``CParser`` so that its ``compose_node``, where the bounds are checked, runs: libyaml's cannot be
    overridden."""

    def __init__(self, stream: str) -> None:
        CParser.__init__(self, stream)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        _Bounds.__init__(self)


class _ExactLoader(_Bounds, yaml.SafeLoader):
    """PyYAML's own reader and scanner, for a document libyaml refused: libyaml refuses escaped surrogate pairs
    (``"\\ud83d\\ude00"``, as ``json.dumps`` writes an emoji), and PyYAML's messages are the ones users were shown."""


def _where(node: Any) -> str:
    mark = node.start_mark
    return f"line {mark.line + 1}, column {mark.column + 1}"


def _unreadable(node: Any, reason: str) -> str:
    """Why a scalar cannot be read, without the scalar itself (it may be thousands of digits)."""
    kind = _KINDS.get(node.tag, "value")
    shown = str(node.value)
    shown = shown if len(shown) <= 40 else f"{shown[:20]}..."
    return f"{_where(node)}: {shown} is not a valid {kind} ({reason}); quote it to keep it as text"


def _text(value: str, node: Any) -> str:
    """``value`` as UTF-8 can hold it: escaped surrogate pairs joined; a lone surrogate is refused."""
    if value.isascii():
        return value
    joined = value.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
    lone = next((c for c in joined if "\ud800" <= c <= "\udfff"), None)
    if lone is not None:
        raise _Refused(f"{_where(node)}: \\u{ord(lone):04x} is half of a surrogate pair, not a character")
    return joined


def _invalid(message: str, detail: str) -> Invalid:
    return Invalid(message, fields=[FieldError(FIELD, detail)])


def load_document(text: str | bytes) -> dict[str, Any]:
    """The one object ``text`` holds; ``Invalid`` (400, field ``document``) saying what is wrong otherwise."""
    size = len(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    if size > MAX_BYTES:
        raise _invalid(f"the document is {size} bytes; the limit is {MAX_BYTES}", "too large")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise _invalid("the document is not UTF-8 text", "not UTF-8 text") from None
    if not text.strip():
        raise _invalid("the document is empty", "empty")
    try:
        document = _load(_FastLoader, text)
    except _Refused as exc:
        raise _invalid(f"the document was refused: {exc}", str(exc)) from None
    except yaml.YAMLError:
        document = _load_exactly(text)
    if not isinstance(document, dict):
        got = "nothing" if document is None else type(document).__name__
        raise _invalid(f"the document must be one object (a mapping), got {got}", "must be an object")
    return document


def _load(loader_class: type[_FastLoader | _ExactLoader], text: str) -> Any:
    loader = loader_class(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def _load_exactly(text: str) -> Any:
    """What PyYAML reads from ``text``, or the refusal naming the line."""
    try:
        return _load(_ExactLoader, text)
    except _Refused as exc:
        raise _invalid(f"the document was refused: {exc}", str(exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        said = [getattr(exc, "context", None), getattr(exc, "problem", None)]
        problem = ", ".join(str(p) for p in said if p) or str(exc).splitlines()[0]
        raise _invalid(f"the document is not valid YAML or JSON: {where}{problem}", f"{where}{problem}") from None
