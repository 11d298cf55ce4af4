"""Request bodies of the workload API: JSON, JSON merge patch and YAML, each a document bounded in size and depth.

JSON is the API's one JSON parser (``base.parsers``: depth, UTF-8, surrogates) with the document's own size bound;
YAML goes through ``pincompute.documents.load_document`` (the loader the pages use: no aliases, bounded size, depth
and node count). A refusal names ``document``. The request body as a whole is bounded before either runs
(``base.bodies``).
"""

from __future__ import annotations

from typing import Any

from rest_framework.parsers import BaseParser

from base.errors import Invalid
from base.parsers import JSONParser
from pincompute.documents import FIELD, MAX_BYTES, load_document
from pincompute.errors import FieldError


def _read(stream: Any) -> bytes:
    data = stream.read(MAX_BYTES + 1) if stream is not None else b""
    if len(data) > MAX_BYTES:
        raise Invalid(f"the body is over {MAX_BYTES} bytes", fields=[FieldError(FIELD, "too large")])
    return data


class BoundedJSONParser(JSONParser):
    field = FIELD

    def read(self, stream: Any) -> bytes:
        return _read(stream)


class MergePatchParser(BoundedJSONParser):
    """RFC 7386 JSON merge patch (what PATCH takes; plain JSON is accepted too)."""

    media_type = "application/merge-patch+json"


class YAMLParser(BaseParser):
    """A workload document as YAML (``application/yaml``; ``application/x-yaml`` and ``text/yaml`` too)."""

    media_type = "application/yaml"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        return load_document(_read(stream))


class LegacyYAMLParser(YAMLParser):
    media_type = "application/x-yaml"


class TextYAMLParser(YAMLParser):
    media_type = "text/yaml"


BODY_PARSERS = [BoundedJSONParser, YAMLParser, LegacyYAMLParser, TextYAMLParser]
PATCH_PARSERS = [MergePatchParser, *BODY_PARSERS]
