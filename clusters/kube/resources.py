"""What the watch cache watches: one ResourceSpec per collection path."""

from __future__ import annotations

from dataclasses import dataclass

from pincompute.kinds import KINDS, MEMBER_CLUSTER

PINCOMPUTE_PLURALS = tuple(info.plural for info in KINDS.values())  # from the one kind registry
MAX_EVENTS = 2000


@dataclass(frozen=True)
class ResourceSpec:
    """A watchable collection. ``optional`` ones are watched only while discovery lists them (CRDs)."""

    key: str  # the name readers use: cache.list("pods")
    path: str  # cluster-wide collection path, e.g. /api/v1/pods
    namespaced: bool
    optional: bool = False
    max_objects: int | None = None  # keep only the newest N (events)

    @property
    def group_version_path(self) -> str:
        return self.path.rsplit("/", 1)[0]

    @property
    def plural(self) -> str:
        return self.path.rsplit("/", 1)[1]


CORE_RESOURCES: tuple[ResourceSpec, ...] = (
    ResourceSpec("pods", "/api/v1/pods", True),
    ResourceSpec("nodes", "/api/v1/nodes", False),
    ResourceSpec("namespaces", "/api/v1/namespaces", False),
    ResourceSpec("events", "/api/v1/events", True, max_objects=MAX_EVENTS),
    ResourceSpec("deployments", "/apis/apps/v1/deployments", True),
    ResourceSpec("jobs", "/apis/batch/v1/jobs", True),
)
PINCOMPUTE_RESOURCES: tuple[ResourceSpec, ...] = tuple(
    ResourceSpec(info.plural, info.collection_path, True, optional=True) for info in KINDS.values()
)
DEFAULT_RESOURCES: tuple[ResourceSpec, ...] = CORE_RESOURCES + PINCOMPUTE_RESOURCES
HOST_RESOURCES: tuple[ResourceSpec, ...] = (
    *PINCOMPUTE_RESOURCES,
    ResourceSpec("controllerrevisions", "/apis/apps/v1/controllerrevisions", True),
    ResourceSpec("events", "/api/v1/events", True, max_objects=MAX_EVENTS),
    ResourceSpec(MEMBER_CLUSTER.plural, MEMBER_CLUSTER.collection_path, False, optional=True),  # workload preview
)
"""The host holds the federated workload objects (each once, with admission and placement in its status),
their revisions (every accepted spec) and their events; members hold their shards. The portal counts usage
from the host's."""
