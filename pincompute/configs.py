"""A project's Secrets and ConfigMaps: the checks on their names, keys and size, and the manifests the portal writes
on the host. Pure: the portal's service and (later) the federation build on it.

Values are never returned by anything here except ``manifest`` (which the writer sends and drops): summaries carry
key names, a version and who changed the object last.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pincompute.errors import FieldError
from pincompute.labels import MANAGED_BY_LABEL, PROJECT_LABEL
from pincompute.specs.checks import dns_subdomain

ConfigKind = Literal["Secret", "ConfigMap"]
CONFIG_KINDS: tuple[ConfigKind, ...] = ("Secret", "ConfigMap")
MANAGED_BY_PORTAL = "pinconsole"
VERSION_ANNOTATION = "pincompute.io/config-version"
CHANGED_BY_ANNOTATION = "pincompute.io/changed-by"
KEY_MAX = 253
# The apiserver's own limit is 1 MiB per object (etcd's request size); this leaves room for the metadata and the
# base64 encoding of a Secret's values (4/3 of their size).
DATA_MAX_BYTES = 512 * 1024
_KEY = re.compile(r"[-._a-zA-Z0-9]+")


@dataclass(frozen=True)
class KeyState:
    """One key of a Secret or ConfigMap as the portal shows it: set (a non-empty value) or unset (empty)."""

    name: str
    set: bool


@dataclass(frozen=True)
class ConfigSummary:
    """What the portal shows of a Secret or ConfigMap, never its values."""

    kind: ConfigKind
    name: str
    keys: tuple[KeyState, ...]
    version: int
    changed_by: str
    created: str


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a Secret or ConfigMap (a DNS-1123 subdomain), or None."""
    if dns_subdomain(name) is None:
        return None
    return (
        f"{name[:60]!r} is not a valid name: a DNS-1123 subdomain (at most 253 lower case letters, digits, '-' and "
        "'.', starting and ending with a letter or digit)"
    )


def key_problem(key: str) -> str | None:
    """Why ``key`` cannot be a data key (Kubernetes: letters, digits, ``-``, ``_``, ``.``; at most 253), or None."""
    if not key or len(key) > KEY_MAX or not _KEY.fullmatch(key) or key in {".", ".."}:
        return (
            f"{key[:60]!r} is not a valid key: use at most {KEY_MAX} letters, digits, '-', '_' or '.' (not '.' or '..')"
        )
    return None


def data_problems(data: Mapping[str, str], *, field: str = "data") -> list[FieldError]:
    """Every bad key of ``data`` (by its path), and the total size over ``DATA_MAX_BYTES``. Values are never quoted."""
    problems = [FieldError(f"{field}.{key[:60]}", p) for key in data if (p := key_problem(key)) is not None]
    size = sum(len(k.encode()) + len(v.encode()) for k, v in data.items())
    if size > DATA_MAX_BYTES:
        problems.append(
            FieldError(field, f"holds {size} bytes; a Secret or ConfigMap holds at most {DATA_MAX_BYTES} bytes")
        )
    return problems


def manifest(
    kind: ConfigKind, *, project: str, namespace: str, name: str, data: Mapping[str, str], version: int, actor: str
) -> dict[str, Any]:
    """The host object for ``data`` (a Secret's as ``stringData``: the apiserver encodes it)."""
    body: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": kind,
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {PROJECT_LABEL: project, MANAGED_BY_LABEL: MANAGED_BY_PORTAL},
            "annotations": {VERSION_ANNOTATION: str(version), CHANGED_BY_ANNOTATION: actor},
        },
    }
    if kind == "Secret":
        body["type"] = "Opaque"
        body["stringData"] = dict(data)
    else:
        body["data"] = dict(data)
    return body


def version_of(obj: Mapping[str, Any]) -> int:
    """The object's version: the portal's counter, one per change (1 when absent or garbled)."""
    version = str(((obj.get("metadata") or {}).get("annotations") or {}).get(VERSION_ANNOTATION, "1"))
    return int(version) if version.isdigit() else 1


def summary(kind: ConfigKind, obj: Mapping[str, Any], data_lengths: Mapping[str, int]) -> ConfigSummary:
    """The summary of a host object, from its metadata and the length of each value (the caller drops the rest)."""
    meta = obj.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    return ConfigSummary(
        kind=kind,
        name=str(meta.get("name", "")),
        keys=tuple(KeyState(k, n > 0) for k, n in sorted(data_lengths.items())),
        version=version_of(obj),
        changed_by=str(annotations.get(CHANGED_BY_ANNOTATION, "")),
        created=str(meta.get("creationTimestamp") or ""),
    )
