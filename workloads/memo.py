"""Values derived from a watch cache's object, remembered by the object's version.

A cache's objects are immutable snapshots (``Store``'s read-only contract): an update is a new object with a new
``resourceVersion``, so what is computed from one (a list row, an API representation) stays right until the
version moves. Lists that are read again and again (dashboards, CLIs polling) then pay once per change, not per
request. Bounded: cleared whole when full (a later read recomputes). An object without a version is never
remembered.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from typing import Any, ClassVar, Generic, TypeVar

T = TypeVar("T")


class VersionMemo(Generic[T]):
    """Keyed by kind, namespace, name, uid and resourceVersion (plus the caller's ``extra``): an apiserver never
    gives two objects that pair, since a uid is a random UUID."""

    _all: ClassVar[weakref.WeakSet[VersionMemo[Any]]] = weakref.WeakSet()

    def __init__(self, capacity: int = 50_000) -> None:
        self.capacity = capacity
        self._values: dict[tuple[Hashable, ...], T] = {}
        VersionMemo._all.add(self)

    @classmethod
    def clear_all(cls) -> None:
        """Forget everything (tests: fake apiservers reuse uids and versions from one test to the next)."""
        for memo in list(cls._all):
            memo._values.clear()

    def get(self, obj: dict[str, Any], extra: tuple[Hashable, ...], compute: Callable[[], T]) -> T:
        meta = obj.get("metadata") or {}
        version = meta.get("resourceVersion")
        if not version:
            return compute()
        key = (obj.get("kind"), meta.get("namespace"), meta.get("name"), meta.get("uid"), version, *extra)
        value = self._values.get(key)
        if value is None:
            if len(self._values) >= self.capacity:
                self._values.clear()
            value = self._values[key] = compute()
        return value

    def __len__(self) -> int:
        return len(self._values)
