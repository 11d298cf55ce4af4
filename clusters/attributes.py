"""What a platform admin writes on the registry, checked: a cluster's attributes (region, zone, hardware families,
labels, taints, schedulable) and a pool's capacity. Parsed from the page's text or checked from the API's structure
the same way, so the page, the API and the management commands refuse the same input with the same field errors;
``snapshot`` and ``pool_snapshot`` are the audit's before/after."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db import connection

from base.errors import Invalid
from clusters.models import Cluster, ClusterPool
from pincompute.quantity import QuantityError, Resources, format_cpu, format_memory, parse_cpu, parse_gpu, parse_memory

_LABEL_KEY = re.compile(r"^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")
_FAMILY = re.compile(r"^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
EDITABLE_FIELDS = ("region", "zone", "hardware_families", "labels", "taints", "schedulable")


@dataclass(frozen=True)
class PoolInput:
    cpu: str
    memory: str
    gpu: str


def snapshot(cluster: Cluster) -> dict[str, Any]:
    return {
        "region": cluster.region,
        "zone": cluster.zone,
        "hardware_families": list(cluster.hardware_families),
        "labels": dict(cluster.labels),
        "taints": list(cluster.taints),
        "schedulable": cluster.schedulable,
    }


def pool_snapshot(pool: ClusterPool) -> dict[str, str]:
    return {"cpu": format_cpu(pool.cpu_milli), "memory": format_memory(pool.memory_bytes), "gpu": str(pool.gpu)}


def _items(text: str) -> list[str]:
    return [item.strip() for item in re.split(r"[,\n]", text or "") if item.strip()]


def check_labels(labels: dict[str, str]) -> dict[str, str]:
    """Validate structured labels (API) as the page's text form is validated; every bad label named at once."""
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in [*labels, *labels.values()]):
        raise Invalid.on_fields({"labels": "Labels are a mapping of text keys to text values."})
    problems = []
    for key, value in labels.items():
        if not _LABEL_KEY.fullmatch(key):
            problems.append(f"{key!r} is not a valid label key.")
        elif len(value) > 63 or not _LABEL_VALUE.fullmatch(value):
            problems.append(f"The value of {key} ({value!r}) is not a valid label value.")
    if problems:
        raise Invalid.on_fields({"labels": " ".join(problems)})
    return dict(labels)


def parse_labels(text: str) -> dict[str, str]:
    """`key=value` pairs separated by commas or newlines."""
    labels: dict[str, str] = {}
    unpaired = []
    for item in _items(text):
        if "=" not in item:
            unpaired.append(f"{item!r} is not key=value.")
            continue
        key, value = (part.strip() for part in item.split("=", 1))
        labels[key] = value
    try:
        checked = check_labels(labels)
    except Invalid as exc:
        unpaired.extend(f.message for f in exc.fields)
    if unpaired:
        raise Invalid.on_fields({"labels": " ".join(unpaired)})
    return checked


def check_taints(taints: list[dict[str, str]]) -> list[dict[str, str]]:
    """Validate structured taints ({key, value?, effect}); returns them normalised."""
    if not isinstance(taints, list | tuple) or not all(
        isinstance(t, dict) and all(isinstance(v, str) for v in t.values()) for t in taints
    ):
        raise Invalid.on_fields({"taints": "Taints are a list of {key, value, effect} with text values."})
    out: list[dict[str, str]] = []
    problems = []
    for taint in taints:
        key, value, effect = taint.get("key", ""), taint.get("value", ""), taint.get("effect", "")
        shown = f"{key}{'=' + value if value else ''}:{effect}"
        if effect not in TAINT_EFFECTS:
            problems.append(f"{shown!r}: write key=value:Effect with Effect one of {', '.join(TAINT_EFFECTS)}.")
        elif not _LABEL_KEY.fullmatch(key) or (value and not _LABEL_VALUE.fullmatch(value)):
            problems.append(f"{shown!r}: the key or value is not a valid label key/value.")
        out.append({"key": key, "value": value, "effect": effect} if value else {"key": key, "effect": effect})
    if problems:
        raise Invalid.on_fields({"taints": " ".join(problems)})
    return out


def parse_taints(text: str) -> list[dict[str, str]]:
    """`key=value:Effect` (value optional) separated by commas or newlines."""
    taints = []
    for item in _items(text):
        body, _, effect = item.rpartition(":")
        key, _, value = body.partition("=")
        taints.append({"key": key, "value": value, "effect": effect if body else ""})
    return check_taints(taints)


def check_families(families: list[str]) -> list[str]:
    if not isinstance(families, list | tuple) or not all(isinstance(f, str) for f in families):
        raise Invalid.on_fields({"hardware_families": "Hardware families are a list of names."})
    unique = sorted({f.strip() for f in families if f.strip()})
    bad = [f for f in unique if not _FAMILY.fullmatch(f)]
    if bad:
        raise Invalid.on_fields({"hardware_families": f"{', '.join(bad)}: use lowercase letters, digits and '-'."})
    return unique


def parse_families(text: str) -> list[str]:
    return check_families(re.split(r"[,\s]+", text or ""))


def attributes_from_text(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The page's text fields (families, labels, taints as lines) -> structured attribute changes, and the fields
    that did not parse (field: why; left out of the changes), so the service can report them with its own."""
    changes = {"region": data["region"], "zone": data["zone"], "schedulable": data["schedulable"]}
    errors: dict[str, str] = {}
    for name, parse in (("hardware_families", parse_families), ("labels", parse_labels), ("taints", parse_taints)):
        try:
            changes[name] = parse(data[name])
        except Invalid as exc:
            errors.update((f.path, f.message) for f in exc.fields)
    return changes, errors


def is_location(value: Any) -> bool:
    """A region or zone name: 1-63 lowercase letters, digits and '-' (surrounding blanks ignored)."""
    return isinstance(value, str) and 0 < len(value.strip()) <= 63 and bool(_FAMILY.fullmatch(value.strip()))


def check_attributes(changes: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Every attribute change checked and normalised here, whichever page, API or command sent it: the changes that
    passed, and every problem (field: why) at once."""
    errors: dict[str, str] = {}
    unknown = sorted(set(changes) - set(EDITABLE_FIELDS))
    if unknown:
        errors[unknown[0]] = f"{', '.join(unknown)} cannot be edited here."
    for name in ("region", "zone"):
        if name in changes and not is_location(changes[name]):
            errors[name] = "Use 1-63 lowercase letters, digits and '-'."
    if "schedulable" in changes and not isinstance(changes["schedulable"], bool):
        errors["schedulable"] = "Schedulable is true or false."
    checked = {name: value for name, value in changes.items() if name in EDITABLE_FIELDS and name not in errors}
    for name, check in (("hardware_families", check_families), ("labels", check_labels), ("taints", check_taints)):
        if name in checked:
            try:
                checked[name] = check(checked[name])
            except Invalid as exc:
                errors.update((f.path, f.message) for f in exc.fields)
                del checked[name]
    return checked, errors


def parse_pool(data: PoolInput) -> Resources:
    errors: dict[str, str] = {}
    values: dict[str, int] = {}
    for field, column, parser, example in (
        ("cpu", "cpu_milli", parse_cpu, "64 or 64000m"),
        ("memory", "memory_bytes", parse_memory, "256Gi"),
        ("gpu", "gpu", parse_gpu, "8"),
    ):
        raw = str(getattr(data, field)).strip()
        if not raw:
            errors[field] = f"Give a quantity (0 for none), for example {example}."
            continue
        try:
            amount = parser(raw)
        except QuantityError as exc:
            errors[field] = f"{raw!r} is not a quantity ({exc}); for example {example}."
            continue
        _, top = connection.ops.integer_field_range(ClusterPool._meta.get_field(column).get_internal_type())
        if amount < 0:
            errors[field] = "Capacity cannot be negative."
        elif amount > top:
            errors[field] = f"{raw!r} is more than the registry can store."
        values[field] = amount
    if errors:
        raise Invalid.on_fields(errors)
    return Resources(cpu_milli=values["cpu"], memory_bytes=values["memory"], gpu=values["gpu"])
