"""A tiny schema language that both validates manifests and generates the CRD OpenAPI schemas.

One definition per field means the apiserver (CRD schema) and the portal (validate) can never disagree
on what a field is called or which type it has; semantic rules ride along as ``checks``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pincompute.errors import FieldError

DATE_TIME = "date-time"  # RFC 3339, as the apiserver checks the format

Check = Callable[[Any], str | None]
"""A semantic rule; it gets the value only after ``check_type`` accepted it (a str for ``Str``, int | str for
``IntOrStr``), so each rule is typed for its node and ``Any`` here stands for that per-node type."""


def join(path: str, key: str | int) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else key)


@dataclass(frozen=True)
class Node(ABC):
    """Base of all schema nodes; ``checks`` return a human sentence when a well-typed value is wrong."""

    description: str = ""
    checks: tuple[Check, ...] = ()

    @abstractmethod
    def openapi(self) -> dict[str, Any]: ...

    @abstractmethod
    def check_type(self, value: object, path: str, errors: list[FieldError]) -> bool: ...

    def check(self, value: object, path: str, errors: list[FieldError]) -> None:
        if self.check_type(value, path, errors):
            for rule in self.checks:
                message = rule(value)
                if message:
                    errors.append(FieldError(path, message))

    def _doc(self, schema: dict[str, Any]) -> dict[str, Any]:
        if self.description:
            schema["description"] = self.description
        return schema


@dataclass(frozen=True)
class Str(Node):
    enum: tuple[str, ...] = ()
    pattern: str | None = None
    max_length: int | None = None
    format: str | None = None  # an OpenAPI format the apiserver checks too, e.g. date-time (``DATE_TIME``)

    def openapi(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "string"}
        if self.format:
            schema["format"] = self.format
        if self.enum:
            schema["enum"] = list(self.enum)
        if self.max_length is not None:
            schema["maxLength"] = self.max_length
        if self.pattern:
            schema["pattern"] = self.pattern
        return self._doc(schema)

    def check_type(self, value: object, path: str, errors: list[FieldError]) -> bool:
        if not isinstance(value, str):
            errors.append(FieldError(path, f"must be a string, got {_type_name(value)}"))
            return False
        if self.enum and value not in self.enum:
            errors.append(FieldError(path, f"{value!r} is not one of {', '.join(self.enum)}"))
            return False
        if self.max_length is not None and len(value) > self.max_length:
            errors.append(FieldError(path, f"must be at most {self.max_length} characters"))
            return False
        return True


@dataclass(frozen=True)
class Int(Node):
    minimum: int | None = None
    maximum: int | None = None

    def openapi(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "integer"}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        return self._doc(schema)

    def check_type(self, value: object, path: str, errors: list[FieldError]) -> bool:
        if isinstance(value, bool) or not isinstance(value, int):
            errors.append(FieldError(path, f"must be a whole number, got {_type_name(value)}"))
            return False
        if self.minimum is not None and value < self.minimum:
            errors.append(FieldError(path, f"must be at least {self.minimum}, got {value}"))
            return False
        if self.maximum is not None and value > self.maximum:
            errors.append(FieldError(path, f"must be at most {self.maximum}, got {value}"))
            return False
        return True


@dataclass(frozen=True)
class Bool(Node):
    def openapi(self) -> dict[str, Any]:
        return self._doc({"type": "boolean"})

    def check_type(self, value: object, path: str, errors: list[FieldError]) -> bool:
        if not isinstance(value, bool):
            errors.append(FieldError(path, f"must be true or false, got {_type_name(value)}"))
            return False
        return True


@dataclass(frozen=True)
class IntOrStr(Node):
    """``x-kubernetes-int-or-string``: quantities, ports by name or number, percentages. The ``anyOf`` is the one
    the apiserver allows beside it (what controller-gen writes): clients and ``kubectl explain`` read the two types."""

    def openapi(self) -> dict[str, Any]:
        return self._doc({"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]})

    def check_type(self, value: object, path: str, errors: list[FieldError]) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | str):
            errors.append(FieldError(path, f"must be a number or a string, got {_type_name(value)}"))
            return False
        return True


@dataclass(frozen=True)
class Field:
    """``nullable``: the schema admits null here. Server-side apply of ``{}`` over a map whose every item the
    applier owned and removed passes null to the schema check (kubernetes/kubernetes#104694: 422 "must be of type
    object"); with ``nullable`` the apply goes through and the object keeps ``{}``. So every optional collection
    the portal may clear by apply is nullable. Validation reads null as absent either way."""

    name: str
    node: Node
    required: bool = False
    nullable: bool = False

    def openapi(self) -> dict[str, Any]:
        schema = self.node.openapi()
        return {**schema, "nullable": True} if self.nullable else schema


@dataclass(frozen=True)
class Obj(Node):
    """A closed object (unknown keys are errors) unless ``open``, which keeps unknown keys (free-form)."""

    fields: tuple[Field, ...] = ()
    open: bool = False

    def openapi(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object"}
        if self.fields:
            schema["properties"] = {f.name: f.openapi() for f in self.fields}
            required = [f.name for f in self.fields if f.required]
            if required:
                schema["required"] = required
        if self.open:
            schema["x-kubernetes-preserve-unknown-fields"] = True
        return self._doc(schema)

    def check_type(self, value: object, path: str, errors: list[FieldError]) -> bool:
        if not isinstance(value, dict):
            errors.append(FieldError(path, f"must be an object, got {_type_name(value)}"))
            return False
        known = {f.name: f for f in self.fields}
        if not self.open:
            for key in value:
                if key not in known:
                    allowed = ", ".join(sorted(known)) or "none"
                    message = f"unknown field {key!r}; allowed: {allowed}"
                    errors.append(FieldError(join(path, str(key)), message))
        for f in self.fields:
            child = value.get(f.name)
            if child is None:
                if f.required:
                    errors.append(FieldError(join(path, f.name), "is required"))
                continue
            f.node.check(child, join(path, f.name), errors)
        return True


@dataclass(frozen=True)
class Arr(Node):
    items: Node = field(default_factory=lambda: Str())
    min_items: int = 0
    max_items: int | None = None
    map_keys: tuple[str, ...] = ()  # a list of objects keyed by these fields (``x-kubernetes-list-type: map``)

    def openapi(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "array", "items": self.items.openapi()}
        if self.map_keys:
            schema["x-kubernetes-list-type"] = "map"
            schema["x-kubernetes-list-map-keys"] = list(self.map_keys)
        if self.min_items:
            schema["minItems"] = self.min_items
        if self.max_items is not None:
            schema["maxItems"] = self.max_items
        return self._doc(schema)

    def check_type(self, value: object, path: str, errors: list[FieldError]) -> bool:
        if not isinstance(value, list):
            errors.append(FieldError(path, f"must be a list, got {_type_name(value)}"))
            return False
        if len(value) < self.min_items:
            errors.append(FieldError(path, f"needs at least {self.min_items} item(s)"))
        if self.max_items is not None and len(value) > self.max_items:
            errors.append(FieldError(path, f"allows at most {self.max_items} items"))
        seen: set[tuple[object, ...]] = set()
        for index, item in enumerate(value):
            self.items.check(item, join(path, index), errors)
            if self.map_keys and isinstance(item, dict):
                key = tuple(str(item.get(name)) for name in self.map_keys)
                if key in seen:
                    errors.append(FieldError(join(path, index), f"{'/'.join(key)!r} is listed twice"))
                seen.add(key)
        return True


@dataclass(frozen=True)
class MapOf(Node):
    """String-keyed map with uniform values (``additionalProperties``), e.g. labels or config data."""

    values: Node = field(default_factory=lambda: Str())
    key_check: Check | None = None

    def openapi(self) -> dict[str, Any]:
        return self._doc({"type": "object", "additionalProperties": self.values.openapi()})

    def check_type(self, value: object, path: str, errors: list[FieldError]) -> bool:
        if not isinstance(value, dict):
            errors.append(FieldError(path, f"must be an object, got {_type_name(value)}"))
            return False
        for key, item in value.items():
            if not isinstance(key, str):  # YAML turns `1:` and `yes:` into numbers and booleans
                errors.append(FieldError(join(path, str(key)), f"keys must be strings, got {_type_name(key)}"))
                continue
            message = self.key_check(key) if self.key_check else None
            if message:
                errors.append(FieldError(join(path, str(key)), message))
            if item is None:
                errors.append(FieldError(join(path, str(key)), "must not be empty"))
                continue
            self.values.check(item, join(path, str(key)), errors)
        return True


def obj(*fields: Field, description: str = "", checks: Sequence[Check] = (), open: bool = False) -> Obj:
    return Obj(description=description, checks=tuple(checks), fields=fields, open=open)


def _type_name(value: object) -> str:
    if value is None:
        return "nothing"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)
