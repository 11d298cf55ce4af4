"""A workload document as the portal edits it: what a user may send back of a live object, the merge patch, and
YAML as people write it. Reading a user's text is the bounded loader's (``pincompute.documents``)."""

from __future__ import annotations

import copy
from typing import Any

import yaml

EDITABLE_METADATA = ("name", "labels", "annotations")
REQUEST_ANNOTATION = "pincompute.io/request-id"
"""Marks the object a create wrote with that request's id (``workloads.submission``): a create whose answer was lost
reads the object back and knows whether it is its own. The platform's: not part of what users edit."""


def editable(obj: dict[str, Any]) -> dict[str, Any]:
    """What a user may send back of a host object (the edit form's text, the API's PATCH base):
    apiVersion, kind, name, labels, annotations and spec; never status or server-owned metadata."""
    meta = obj.get("metadata") or {}
    metadata = {k: copy.deepcopy(meta[k]) for k in EDITABLE_METADATA if meta.get(k)}
    if REQUEST_ANNOTATION in metadata.get("annotations", {}):
        del metadata["annotations"][REQUEST_ANNOTATION]
        if not metadata["annotations"]:
            del metadata["annotations"]
    return {
        "apiVersion": obj.get("apiVersion"),
        "kind": obj.get("kind"),
        "metadata": metadata,
        "spec": copy.deepcopy(obj.get("spec") or {}),
    }


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: objects merge key by key, ``null`` removes a key, anything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def dump_document(obj: Any) -> str:
    """YAML as people write it (block style, keys in the order given)."""
    return yaml.safe_dump(obj, sort_keys=False, default_flow_style=False, allow_unicode=True)
