"""Request bodies of the workload API: JSON, JSON merge patch and YAML, all read with bounded size and depth.

YAML goes through ``pincompute.documents.load_document`` (the loader the pages use: no aliases, bounded size,
depth and node count). JSON is bounded the same way: a body over the size limit or nested deeper than
Python's parser can follow is a 400 naming ``document``, never a 500.
"""

from __future__ import annotations

import json
from typing import Any

from rest_framework.parsers import BaseParser

from base.errors import Invalid
from base.parsers import refuse_unencodable
from pincompute.documents import FIELD, MAX_BYTES, MAX_DEPTH, load_document
from pincompute.errors import FieldError


def _read(stream: Any) -> bytes:
    data = stream.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise Invalid(f"the body is over {MAX_BYTES} bytes", fields=[FieldError(FIELD, "too large")])
    return data


def _depth(value: Any) -> int:
    depth, level = 0, [value]
    while level:
        depth += 1
        nested: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                nested.extend(item.values())
            elif isinstance(item, list):
                nested.extend(item)
        level = nested
        if depth > MAX_DEPTH + 1:
            break
    return depth - 1


class BoundedJSONParser(BaseParser):
    media_type = "application/json"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        data = _read(stream)
        try:
            value = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError:
            raise Invalid("the body is not UTF-8 text", fields=[FieldError(FIELD, "not UTF-8 text")]) from None
        except RecursionError:
            raise Invalid.on(FIELD, f"nested more than {MAX_DEPTH} levels deep") from None
        except ValueError as exc:
            raise Invalid(f"the body is not valid JSON: {exc}", fields=[FieldError(FIELD, str(exc))]) from None
        if _depth(value) > MAX_DEPTH:
            raise Invalid.on(FIELD, f"nested more than {MAX_DEPTH} levels deep")
        refuse_unencodable(value)  # a lone surrogate ("\ud800") anywhere: a 400 by path, not a 500 later
        return value


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
