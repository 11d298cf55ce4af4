"""Operating a workload: pause, resume, stop, start, restart, restart a container, scale, delete.

Each is a change of the host object's spec (``spec.operations``, ``spec.replicas``) that the federation
carries to every shard; it is checked like a submission (the changed spec must still be valid and fit the
grant), written as a conditional merge patch (a concurrent change is a 409, never a lost update) and
audited. Developers and owners may operate; viewers are refused, other tenants get a 404.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from base.errors import Conflict, Invalid, NotFound
from projects.access import require_role
from projects.models import Project
from workloads import host
from workloads.core.errors import FieldError
from workloads.core.kinds import KINDS
from workloads.core.status import rfc3339
from workloads.documents import editable, merge_patch
from workloads.submission import WRITE_ROLES, check, record

OPERATIONS = ("pause", "resume", "stop", "start", "restart", "restart-container", "scale")
MAX_REPLICAS = 10000


def operation_patch(
    live: dict[str, Any], operation: str, *, replicas: int | None = None, container: str = "", pod: str = ""
) -> dict[str, Any]:
    """The ``spec`` merge patch ``operation`` means for the live object (400 naming the field when it
    does not apply)."""
    kind = str(live.get("kind"))
    spec = live.get("spec") or {}
    now = rfc3339(timezone.now())
    if operation == "pause":
        return {"operations": {"paused": True}}
    if operation == "resume":
        return {"operations": {"paused": False}}
    if operation == "stop":
        return {"operations": {"stopped": True}}
    if operation == "start":
        return {"operations": {"stopped": False}}
    if operation == "restart":
        return {"operations": {"restartedAt": now}}
    if operation == "restart-container":
        pod_spec = spec.get("template") if kind == "PinApp" else spec
        names = [c.get("name") for c in (pod_spec or {}).get("containers") or []]
        if container not in names:
            raise Invalid.on("container", f"must be one of the workload's containers: {', '.join(map(str, names))}")
        request = {"container": container, "requestedAt": now, **({"pod": pod} if pod else {})}
        return {"operations": {"restartContainer": request}}
    if operation == "scale":
        if not KINDS[kind].scalable:
            raise Invalid.on("replicas", f"a {kind} does not scale; only {', '.join(_scalable())} do")
        if replicas is None or not 0 <= replicas <= MAX_REPLICAS:
            raise Invalid.on("replicas", f"must be a whole number from 0 to {MAX_REPLICAS}")
        return {"replicas": replicas}
    raise Invalid.on("operation", f"must be one of {', '.join(OPERATIONS)}")


def operate(
    actor: Any,
    project: Project,
    kind: str,
    name: str,
    operation: str,
    *,
    replicas: int | None = None,
    container: str = "",
    pod: str = "",
    version: str | None = None,
) -> dict[str, Any]:
    """Apply ``operation`` to the workload; returns the host object as written."""
    require_role(project, actor, WRITE_ROLES)
    if not project.is_active:
        raise Conflict(f"Project {project.name} is archived.")
    live = _live(project, kind, name)
    _current(live, version)
    patch = operation_patch(live, operation, replicas=replicas, container=container, pod=pod)
    changed = _merged(live, {"spec": patch})
    check(project, changed)  # still valid, and a scale-up must still be able to fit the grant
    body = {"metadata": {"resourceVersion": live["metadata"]["resourceVersion"]}, "spec": patch}
    written = host.patch(kind, project.namespace, name, body)
    record(
        actor,
        project,
        f"workload.{operation}",
        kind,
        name,
        before=_relevant(live.get("spec") or {}, patch),
        after=patch,
    )
    return written


def delete(actor: Any, project: Project, kind: str, name: str, *, version: str | None = None) -> None:
    """Delete the host object; the federation removes every shard first (its finalizer)."""
    require_role(project, actor, WRITE_ROLES)
    live = _live(project, kind, name)
    _current(live, version)
    host.delete(kind, project.namespace, name, uid=live["metadata"].get("uid"))
    record(actor, project, "workload.delete", kind, name, before=live.get("spec"))


def _live(project: Project, kind: str, name: str) -> dict[str, Any]:
    if kind not in KINDS:
        raise NotFound("No such workload.")
    try:
        return host.get(kind, project.namespace, name)
    except NotFound:
        raise NotFound(f"No {kind} named {name} in project {project.name}.") from None


def _current(live: dict[str, Any], version: str | None) -> None:
    have = host.version_of(live)
    if version and version != have:
        raise Conflict(
            f"It changed since you read it: you saw version {version}, the live version is {have}.",
            fields=[FieldError("version", f"is {have}")],
        )


def _merged(live: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """The object ``patch`` would leave, as a submission checks it."""
    return merge_patch(editable(live), patch)


def _relevant(spec: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    return {key: spec.get(key) for key in patch}


def _scalable() -> list[str]:
    return [kind for kind, info in KINDS.items() if info.scalable]
