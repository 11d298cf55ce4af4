"""Looking a workload up, scoped to the user's projects (reads only; the writes are ``workloads.services``).

Workloads are the host cluster's objects (the federation's store), read from the host watch cache: one row
per workload whatever the number of its shards. Another tenant's workload is ``NotFound``, like a missing one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from base.errors import NotFound
from pincompute.kinds import KINDS
from projects.access import ADMIN, roles_of, visible_project
from projects.models import Project, ProjectRole
from workloads import host

_WRITERS = frozenset({ProjectRole.OWNER, ProjectRole.DEVELOPER, ADMIN})


def visible_projects(user: Any) -> list[Project]:
    return list(Project.objects.visible_to(user).order_by("name"))


def kind_named(value: str) -> str:
    """The kind a URL names: its kind (``PinApp``), any case, or its plural; ``NotFound`` otherwise."""
    for kind, info in KINDS.items():
        if value.lower() in (kind.lower(), info.plural):
            return kind
    raise NotFound("No such workload.")


@dataclass(frozen=True)
class Found:
    project: Project
    kind: str
    name: str
    obj: dict[str, Any]
    role: str | None

    @property
    def can_write(self) -> bool:
        return self.role in _WRITERS and self.project.is_active

    @property
    def version(self) -> str:
        return host.version_of(self.obj)


def find_workload(user: Any, project_name: str, kind: str, name: str) -> Found:
    """The host object of a workload ``user`` may see: from the host watch cache, or (a miss: it may have
    been written a moment ago) one point read of the host. ``NotFound`` for another tenant's or a missing
    one (or a name no Kubernetes object can have), ``Unavailable`` when the host cannot be read."""
    from clusters import runtime

    project = visible_project(user, project_name)
    kind = kind_named(kind)
    if not host.object_name(name):  # can name no workload: absent, as the host is never asked
        raise NotFound(f"No {kind} named {name} in project {project.name}.")
    cache = runtime.host_cache()
    obj = cache.get(KINDS[kind].plural, project.namespace, name) if cache is not None else None
    if obj is None:
        try:
            obj = host.get(kind, project.namespace, name)
        except NotFound:
            raise NotFound(f"No {kind} named {name} in project {project.name}.") from None
    role = roles_of(user, [project]).get(project.pk)
    return Found(project, kind, name, obj, role)
