"""Read an exposition with the official parser: families by name, one sample's value."""

from __future__ import annotations

from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families


def families(text: str) -> dict[str, Metric]:
    return {family.name: family for family in text_string_to_metric_families(text)}


def value(found: dict[str, Metric], sample: str, **labels: str) -> float:
    """The value of ``sample`` (a full sample name, e.g. ``x_total``) whose labels include ``labels``; 0 if absent."""
    for family in found.values():
        for s in family.samples:
            if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
    return 0.0


def label_sets(found: dict[str, Metric], family: str) -> set[tuple[str, ...]]:
    """The label names each sample of ``family`` carries (``le`` of histogram buckets included)."""
    return {tuple(sorted(s.labels)) for s in found[family].samples}
