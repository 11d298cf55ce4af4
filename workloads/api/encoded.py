"""List pages whose objects are JSON-encoded once per object version, not on every request.

A page's ``results`` may be ``Encoded``: the representations (a list, as any renderer, serializer or test sees it)
with the JSON text of each, remembered by the object's version as the representation is (``workloads.memo``).
``PageJSONRenderer`` is DRF's ``JSONRenderer`` that splices those texts into the body instead of encoding the
objects again: the same bytes as ``JSONRenderer`` gives, byte for byte (``tests/workloads/api/test_encoded_pages.py``).
Asked to indent (``Accept: application/json; indent=4``, the browsable API), it encodes everything as DRF does.
A body holding a character UTF-8 cannot encode (a lone surrogate, which JSON's ``"\\ud800"`` escape decodes to)
is encoded with ``ensure_ascii`` instead: valid JSON with that character escaped, never a 500.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from rest_framework.renderers import JSONRenderer
from rest_framework.utils.json import dumps

RESULTS = "results"


class Encoded(list[Any]):
    """A page's results, each with its JSON text as ``JSONRenderer`` encodes it (``encode``)."""

    def __init__(self, items: Sequence[Any], texts: Sequence[str]) -> None:
        if len(items) != len(texts):
            raise ValueError("one text per item")
        super().__init__(items)
        self.texts = list(texts)


def _escaped(text: str) -> str:
    # as JSONRenderer: \u2028 and \u2029 always escaped, so that the JSON is a strict JavaScript subset
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _separators(renderer: JSONRenderer) -> tuple[str, str]:
    return (",", ":") if renderer.compact else (", ", ": ")


def encode(value: Any, renderer: JSONRenderer | None = None) -> str:
    """``value`` as ``renderer`` (a ``JSONRenderer``) encodes it without indent, as text."""
    renderer = renderer or JSONRenderer()
    text = dumps(
        value,
        cls=renderer.encoder_class,
        ensure_ascii=renderer.ensure_ascii,
        allow_nan=not renderer.strict,
        separators=_separators(renderer),
    )
    return _escaped(text)


class _ASCIIRenderer(JSONRenderer):
    ensure_ascii = True


class PageJSONRenderer(JSONRenderer):
    """``JSONRenderer`` for bodies whose last key is ``results``, an ``Encoded``: its texts spliced in."""

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Mapping[str, Any] | None = None
    ) -> bytes:
        try:
            return self._render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:  # a lone surrogate: escape it as ensure_ascii does
            return _ASCIIRenderer().render(data, accepted_media_type, renderer_context)  # type: ignore[no-any-return]

    def _render(self, data: Any, accepted_media_type: str | None, renderer_context: Mapping[str, Any] | None) -> bytes:
        results = data.get(RESULTS) if isinstance(data, dict) else None
        indent = self.get_indent(accepted_media_type, renderer_context or {})
        if not isinstance(results, Encoded) or indent is not None or next(reversed(data)) != RESULTS:
            return super().render(data, accepted_media_type, renderer_context)  # type: ignore[no-any-return]
        item, key = _separators(self)
        head = encode({k: v for k, v in data.items() if k != RESULTS}, self)[:-1]  # '{"next":...' without its '}'
        lead = head + (item if len(data) > 1 else "") + json.dumps(RESULTS) + key
        return f"{lead}[{item.join(results.texts)}]}}".encode()
