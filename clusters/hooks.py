"""The one allowed inversion of the layers: what the cluster registry needs of the projects app above it.

The registry may not import ``projects`` (the layers contract in ``pyproject.toml``), yet two of its writes depend
on it: a pool may not shrink below what the region has granted (``clusters.capacity``), and a newly registered
cluster must get every existing project at once (not only at the next reconcile). The projects app hands both over
at start-up (``ProjectsConfig.ready`` calls ``wire``): explicit wiring in one typed place, not a signal, and
``tests/clusters/test_hooks.py`` fails when it is missing. Nothing else may be added here without the same
reasoning written down in ``docs/architecture.md`` ("The one allowed inversion").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pincompute.quantity import Resources
from pincompute.tiers import Tier


@dataclass(frozen=True)
class ProjectHooks:
    """``grant_totals``: what every project is granted, summed per tier (the pools of the tier must keep holding
    it). ``cluster_registered``: called with a new cluster's id once its registration has committed."""

    grant_totals: Callable[[], Mapping[Tier, Resources]]
    cluster_registered: Callable[[int], None]


_wired: ProjectHooks | None = None


class NotWired(RuntimeError):
    """The projects app did not wire the registry: a registry write would judge capacity against no grants."""


def wire(hooks: ProjectHooks) -> None:
    global _wired
    _wired = hooks


def project_hooks() -> ProjectHooks:
    if _wired is None:
        raise NotWired("clusters.hooks is not wired: the projects app's ready() calls clusters.hooks.wire")
    return _wired


def grant_totals() -> dict[Tier, Resources]:
    """What the region has granted per tier (every tier present, zero when nothing is granted)."""
    return {tier: Resources() for tier in Tier} | dict(project_hooks().grant_totals())
