"""The writes and reads of a project's Secrets and ConfigMaps, for pages, the API and the CLI alike.

Authorization follows what Kubernetes' ``view``/``edit`` roles allow: every member lists the names; a Secret's keys
(set or unset), version and last writer are for developers, owners and platform admins; a ConfigMap reads whole
for every member; only developers, owners and platform admins write. Another tenant's project is ``NotFound``.
Audit rows name the keys and the version, never a value. Edits set the keys given and remove the keys named:
a Secret's value is never read back, so an edit cannot need it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from base.audit import record
from base.errors import Conflict, FieldError, Invalid
from configs import host_objects
from pincompute.configs import ConfigKind, ConfigSummary, data_problems, manifest, name_problem, version_of
from projects.access import ADMIN, require_active, require_role
from projects.models import Project, ProjectRole

WRITERS = (ProjectRole.OWNER, ProjectRole.DEVELOPER)
READERS = (ProjectRole.OWNER, ProjectRole.DEVELOPER, ProjectRole.VIEWER)


@dataclass(frozen=True)
class Listing:
    """What a caller may see of a project's objects of one kind: ``details`` False shows names only."""

    items: list[ConfigSummary]
    details: bool


def may_read_details(project: Project, actor: Any, kind: ConfigKind) -> bool:
    """Whether ``actor`` sees keys and versions (a Secret's are for writers only); NotFound for strangers."""
    role = require_role(project, actor, READERS)
    return kind == "ConfigMap" or role in (ADMIN, *WRITERS)


def may_write(project: Project, actor: Any) -> bool:
    """Whether ``actor`` may create, edit and delete (for pages: which buttons to show)."""
    role = require_role(project, actor, READERS)
    return role in (ADMIN, *WRITERS)


def list_configs(project: Project, kind: ConfigKind, *, actor: Any) -> Listing:
    details = may_read_details(project, actor, kind)
    return Listing(host_objects.list_summaries(kind, project.namespace, project.name), details)


def get_config(project: Project, kind: ConfigKind, name: str, *, actor: Any) -> ConfigSummary:
    """One object's summary; a viewer asking for a Secret's details is Forbidden."""
    require_role(project, actor, READERS if kind == "ConfigMap" else WRITERS)
    return host_objects.read_summary(kind, project.namespace, project.name, name)


def configmap_values(project: Project, name: str, *, actor: Any) -> dict[str, str]:
    """A ConfigMap's values (never a Secret's: there is no such function)."""
    require_role(project, actor, READERS)
    return host_objects.read_data("ConfigMap", project.namespace, project.name, name)[1]


def _check(kind: ConfigKind, name: str, data: Mapping[str, str], remove: Sequence[str] = ()) -> None:
    problems = []
    if (problem := name_problem(name)) is not None:
        problems.append(FieldError("name", problem))
    problems += data_problems(data)
    both = sorted(set(data) & set(remove))
    if both:
        problems.append(FieldError("remove", f"keys both set and removed: {', '.join(both)[:200]}"))
    if problems:
        raise Invalid(f"The {kind} was not saved: {problems[0].path}: {problems[0].message}", fields=problems)


def _audit(verb: str, project: Project, kind: ConfigKind, name: str, actor: Any, before: Any, after: Any) -> None:
    record(
        f"{kind.lower()}.{verb}",
        actor=actor,
        target_kind=kind,
        target_name=name,
        project=project.name,
        before=before,
        after=after,
        summary=f"{verb} {kind} {name} in {project.name}",
    )


def create_config(project: Project, kind: ConfigKind, name: str, data: Mapping[str, str], *, actor: Any) -> int:
    """Create the object with ``data``; its version is 1. A taken name is a Conflict."""
    require_role(project, actor, WRITERS)
    require_active(project)
    _check(kind, name, data)
    body = manifest(
        kind,
        project=project.name,
        namespace=project.namespace,
        name=name,
        data=data,
        version=1,
        actor=actor.get_username(),
    )
    host_objects.create(kind, body)
    _audit("create", project, kind, name, actor, None, {"keys": sorted(data), "version": 1})
    return 1


def update_config(
    project: Project,
    kind: ConfigKind,
    name: str,
    data: Mapping[str, str],
    *,
    remove: Sequence[str] = (),
    version: int | None = None,
    actor: Any,
) -> int:
    """Set the keys of ``data``, remove the keys in ``remove``; the version grows by one. ``version`` (what the
    caller saw) makes a concurrent edit a Conflict."""
    require_role(project, actor, WRITERS)
    require_active(project)
    _check(kind, name, data, remove)
    meta, current = host_objects.read_data(kind, project.namespace, project.name, name)
    held = version_of(meta)
    if version is not None and version != held:
        raise Conflict(f"{kind} {name} changed since you read it: version {version}, now {held}.")
    absent = sorted(set(remove) - set(current))
    if absent:
        raise Invalid(f"No such key: {', '.join(absent)[:200]}", fields=[FieldError("remove", "no such key")])
    merged = {k: v for k, v in current.items() if k not in set(remove)} | dict(data)
    if problems := data_problems(merged):
        raise Invalid(f"The {kind} was not saved: {problems[0].message}", fields=problems)
    body = manifest(
        kind,
        project=project.name,
        namespace=project.namespace,
        name=name,
        data=merged,
        version=held + 1,
        actor=actor.get_username(),
    )
    host_objects.replace(kind, body, str(meta["metadata"]["resourceVersion"]))
    _audit(
        "update",
        project,
        kind,
        name,
        actor,
        {"keys": sorted(current), "version": held},
        {"keys": sorted(merged), "version": held + 1, "set": sorted(data), "removed": sorted(remove)},
    )
    return held + 1


def delete_config(project: Project, kind: ConfigKind, name: str, *, actor: Any) -> None:
    require_role(project, actor, WRITERS)
    require_active(project)
    meta, current = host_objects.read_data(kind, project.namespace, project.name, name)
    host_objects.delete(kind, project.namespace, name, str(meta["metadata"]["resourceVersion"]))
    version = version_of(meta)
    _audit("delete", project, kind, name, actor, {"keys": sorted(current), "version": version}, None)


def held_keys(project: Project, kinds: set[ConfigKind]) -> dict[tuple[ConfigKind, str], frozenset[str]]:
    """The keys of each of the project's objects of ``kinds`` (for checking a workload's references: its submitter
    was authorized to write workloads, which may use the project's Secrets, by the caller)."""
    return {
        (kind, item.name): frozenset(k.name for k in item.keys)
        for kind in sorted(kinds)
        for item in host_objects.list_summaries(kind, project.namespace, project.name)
    }
