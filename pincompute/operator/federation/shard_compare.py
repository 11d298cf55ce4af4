"""Comparing a member's shard with what the federation wants there (kept apart from the propagator, which grew)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pincompute.labels import FEDERATED_LABEL


def same_shard(desired: Mapping[str, Any], live: Mapping[str, Any]) -> bool:
    dm, lm = desired["metadata"], live.get("metadata") or {}
    return (
        desired.get("spec") == live.get("spec")
        and all((lm.get("labels") or {}).get(k) == v for k, v in dm["labels"].items())
        and all((lm.get("annotations") or {}).get(k) == v for k, v in dm["annotations"].items())
    )


def federated(obj: Mapping[str, Any] | None) -> bool:
    return obj is not None and ((obj.get("metadata") or {}).get("labels") or {}).get(FEDERATED_LABEL) == "true"
