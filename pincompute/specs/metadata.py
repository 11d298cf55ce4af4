"""``metadata.labels`` and ``metadata.annotations`` as the Kubernetes apiserver validates them, so what the
portal's validation accepts (the page's preview, the API's dry run, submit, the operator) the host's apiserver
takes, and what it would refuse is refused first, with its field path.

The rules are apimachinery's (``pkg/util/validation.IsQualifiedName``, ``pkg/api/validation.ValidateAnnotations``,
``pkg/apis/meta/v1/validation.ValidateLabels``):

- a key is a qualified name: an optional prefix and '/', then a name. The prefix is a DNS-1123 subdomain of at most
  253 characters; the name has 1-63 characters, ``[A-Za-z0-9]`` at both ends and ``[-._A-Za-z0-9]`` inside. One '/'
  at most. Annotation keys are checked lower-cased (case does not matter there); label keys as they are;
- label values are at most 63 such characters, or empty; annotation values are any strings;
- the annotations, keys and values together, hold at most ``TOTAL_ANNOTATION_SIZE`` bytes (Go's ``len``: UTF-8).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pincompute.errors import FieldError
from pincompute.specs.schema import Node, join

TOTAL_ANNOTATION_SIZE = 256 * 1024
"""Kubernetes' ``TotalAnnotationSizeLimitB``: 262144 bytes of keys and values."""
QUALIFIED_NAME_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253

_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_NAME_RULE = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName', 'my.name' or '123-abc')"
)
_PREFIX_RULE = (
    "must be a lowercase RFC 1123 subdomain: lower case alphanumeric characters, '-' or '.', starting and ending "
    "with an alphanumeric character (e.g. 'example.com')"
)
# Go's unicode.ToLower maps these to ASCII letters too (Python's str.lower turns U+0130 into two characters).
_GO_LOWER = str.maketrans({"\u0130": "i", "\u212a": "k"})


def qualified_name(value: str) -> list[str]:
    """Why ``value`` is not a Kubernetes qualified name (``IsQualifiedName``'s messages); [] when it is one."""
    parts = value.split("/")
    if len(parts) > 2:
        return [
            f"a qualified name {_NAME_RULE}, with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    problems: list[str] = []
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            problems.append("prefix part must not be empty")
        else:
            if len(prefix) > DNS1123_SUBDOMAIN_MAX:
                problems.append(f"prefix part must be no more than {DNS1123_SUBDOMAIN_MAX} characters")
            if not _SUBDOMAIN.fullmatch(prefix):
                problems.append(f"prefix part {_PREFIX_RULE}")
    if not name:
        problems.append("name part must not be empty")
    elif len(name) > QUALIFIED_NAME_MAX:
        problems.append(f"name part must be no more than {QUALIFIED_NAME_MAX} characters")
    if not _NAME.fullmatch(name):
        problems.append(f"name part {_NAME_RULE}")
    return problems


def label_key(value: str) -> str | None:
    """A ``metadata.labels`` key: a qualified name, case as it is."""
    problems = qualified_name(value)
    return f"{value!r} is not a valid label key: {'; '.join(problems)}" if problems else None


def annotation_key(value: str) -> str | None:
    """A ``metadata.annotations`` key: a qualified name once lower-cased, as Go's ``strings.ToLower`` does."""
    problems = qualified_name(value.translate(_GO_LOWER).lower())
    return f"{value!r} is not a valid annotation key: {'; '.join(problems)}" if problems else None


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _type_name(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, dict) else type(value).__name__


@dataclass(frozen=True)
class Annotations(Node):
    """``metadata.annotations``: string keys that are qualified names (case aside), string values (empty
    allowed), at most ``TOTAL_ANNOTATION_SIZE`` bytes in all; every problem with its path."""

    def openapi(self) -> dict[str, Any]:
        return self._doc({"type": "object", "additionalProperties": {"type": "string"}})

    def check_type(self, value: object, path: str, errors: list[FieldError]) -> bool:
        if not isinstance(value, dict):
            errors.append(FieldError(path, f"must be an object, got {_type_name(value)}"))
            return False
        total = 0
        for key, item in value.items():
            where = join(path, str(key))
            if not isinstance(key, str):  # YAML turns `1:` and `yes:` into numbers and booleans
                errors.append(FieldError(where, f"keys must be strings, got {_type_name(key)}"))
                continue
            message = annotation_key(key)
            if message:
                errors.append(FieldError(where, message))
            if not isinstance(item, str):
                errors.append(FieldError(where, f"must be a string, got {_type_name(item)}"))
                continue
            total += _size(key) + _size(item)
        if total > TOTAL_ANNOTATION_SIZE:
            errors.append(
                FieldError(
                    path,
                    f"the annotations take {total} bytes (keys and values, UTF-8); Kubernetes takes at most "
                    f"{TOTAL_ANNOTATION_SIZE} (256 KiB)",
                )
            )
        return True
