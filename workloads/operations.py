"""Operating a workload: pause, resume, stop, start, restart, restart a container, scale, delete.

Each is a change of the host object's spec (``spec.operations``, ``spec.replicas``) that the federation
carries to every shard once its admission admits it; it is checked like a submission (the changed spec must still
be valid and fit the grant; a growth of an admitted workload must fit beside the project's other admitted
workloads, ``workloads.growth``), written as a conditional merge patch (never a lost update) and audited.
Developers and owners may operate; viewers are refused, other tenants get a 404.

An operation the spec already says (``start`` on a running workload, ``pause`` on a paused one, ``scale`` to the
replicas it has) writes nothing: no patch, no new generation, no audit row; the caller gets the object as it is
(same version) and ``Operated.changed`` false. An operation without a meaning for the kind is refused as ``pause``
on a PinPod is: a PinPod cannot be paused, so ``resume`` is a 400 on ``spec.operations.paused`` too, and a kind
that runs no pods (a PinScaler) cannot be restarted.
``restart`` and ``restart-container`` write a new request time each time (asked twice in one second, they are
one request).

The operator and the federation write the object's status and metadata all the time, so the patch's
resourceVersion is often stale by the time it lands. Such a conflict is retried on a fresh read: an
operation is a small change the caller wants applied to whatever is live. Only a caller who named a version
(``If-Match``, a page's version) gets a 409, and only when the spec moved past it (both versions named).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from base.errors import Conflict, Invalid, NotFound, Unavailable
from pincompute.errors import FieldError, SpecInvalid
from pincompute.kinds import KINDS
from pincompute.specs import parse
from pincompute.specs.checks import container_name
from pincompute.status import rfc3339
from projects.access import require_role
from projects.models import Project
from workloads import host
from workloads.conflicts import Raced, raced, retried_on_conflict
from workloads.documents import editable, merge_patch
from workloads.growth import growth_checked
from workloads.reads import pods_of
from workloads.submission import WRITE_ROLES, check, record

OPERATIONS = ("pause", "resume", "stop", "start", "restart", "restart-container", "scale")
MAX_REPLICAS = 10000
UNPAUSABLE = frozenset({"PinPod"})
"""Kinds whose spec refuses ``operations.paused: true`` (they stop instead): ``resume`` means nothing for them."""


@dataclass(frozen=True)
class Operated:
    """The host object after an operation, and whether the operation wrote it (false: the spec already said so)."""

    obj: dict[str, Any]
    changed: bool


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
        if kind in UNPAUSABLE:  # the same refusal as pause's (the core's check of ``paused: true``)
            message = f"a {kind} cannot be paused, so there is nothing to resume; use start"
            raise SpecInvalid([FieldError("spec.operations.paused", message)])
        return {"operations": {"paused": False}}
    if operation == "stop":
        return {"operations": {"stopped": True}}
    if operation == "start":
        return {"operations": {"stopped": False}}
    if operation in ("restart", "restart-container") and not KINDS[kind].runs_pods:
        field = "restartedAt" if operation == "restart" else "restartContainer"
        message = f"a {kind} runs no pods of its own; restart the workload it drives"
        raise SpecInvalid([FieldError(f"spec.operations.{field}", message)])
    if operation == "restart":
        return {"operations": {"restartedAt": now}}
    if operation == "restart-container":
        _check_container(kind, spec, container)
        if pod:
            _check_pod(live, pod)
        # null removes the pod an earlier request named (a merge patch keeps what it does not mention)
        request = {"container": container, "requestedAt": now, "pod": pod or None}
        return {"operations": {"restartContainer": request}}
    if operation == "scale":
        if not KINDS[kind].scalable:
            raise Invalid.on("replicas", f"a {kind} does not scale; only {', '.join(_scalable())} do")
        if replicas is None or not 0 <= replicas <= MAX_REPLICAS:
            raise Invalid.on("replicas", f"must be a whole number from 0 to {MAX_REPLICAS}")
        return {"replicas": replicas}
    raise Invalid.on("operation", f"must be one of {', '.join(OPERATIONS)}")


def operate_workload(
    project: Project,
    kind: str,
    name: str,
    operation: str,
    *,
    actor: Any,
    replicas: int | None = None,
    container: str = "",
    pod: str = "",
    version: str | None = None,
) -> Operated:
    """Apply ``operation`` to the workload: the host object as written, and whether anything was (an operation the
    live spec already says is answered with the live object, unchanged, without a patch, a grant check or an audit
    row). ``version`` (If-Match) makes it conditional on the spec still being at that version."""
    require_role(project, actor, WRITE_ROLES)
    if not project.is_active:
        raise Conflict(f"Project {project.name} is archived.")
    changes: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (live, patch) of the attempt that was written

    def attempt() -> Operated:
        live = _live(project, kind, name)
        _current(live, version)
        patch = operation_patch(live, operation, replicas=replicas, container=container, pod=pod)
        merged = _merged(live, {"spec": patch})
        if _same_workload(_merged(live, {}), merged):
            return Operated(live, changed=False)
        workload = check(project, merged)  # still valid, and never beyond the whole grant
        body = {"metadata": {"resourceVersion": live["metadata"]["resourceVersion"]}, "spec": patch}
        with growth_checked(project, live, workload):  # a growth of what is admitted must fit beside the rest
            try:
                written = raced(lambda: host.patch(kind, project.namespace, name, body))
            except host.OutcomeUnknown as lost:
                written = _landed(project, operation, live, patch, lost)
        changes.append((live, patch))
        return Operated(written, changed=True)

    outcome = retried_on_conflict(attempt)
    if outcome.changed:
        live, patch = changes[-1]
        before = _relevant(live.get("spec") or {}, patch)
        record(project, f"workload.{operation}", kind, name, actor=actor, before=before, after=patch)
    return outcome


def _landed(
    project: Project, operation: str, live: dict[str, Any], patch: dict[str, Any], lost: host.OutcomeUnknown
) -> dict[str, Any]:
    """The object after this request's patch whose answer was lost, read back: applied at most once.

    The patch was conditional on ``live``'s resourceVersion, so it lands at most once, and only on that version.
    Read back: the spec says what the patch says (the same ``restartedAt`` this request chose) past ``live``'s
    version: this request wrote it (changed, audited, never written again). The object moved on without it: the
    patch can no longer land (its resourceVersion is stale), so it is ``Raced``, tried again on a fresh read.
    Still at the version patched: it may yet land; that, or a read that fails too, is a 503 saying the outcome is
    unknown and how to check."""
    kind, name = str(live.get("kind")), str((live.get("metadata") or {}).get("name"))
    unknown = Unavailable(
        f"Whether the {operation} of {kind} {name} in project {project.name} was applied is unknown: the host's "
        f"answer was lost ({lost.message}). Check the workload's version and spec (GET /api/v1/projects/"
        f"{project.name}/workloads/{kind}/{name}/) before asking again."
    )
    try:
        now = _live(project, kind, name)
    except (NotFound, Unavailable) as exc:
        raise unknown from exc
    if host.version_of(now) != host.version_of(live) and _same_workload(
        _merged(now, {}), _merged(now, {"spec": patch})
    ):
        return now  # this request's patch is there: the answer it would have had
    sent = (live.get("metadata") or {}).get("resourceVersion")
    if (now.get("metadata") or {}).get("resourceVersion") != sent:
        raise Raced(Conflict(f"{kind} {name} changed while the {operation} was sent; it was not applied."))
    raise unknown from lost


def delete_workload(project: Project, kind: str, name: str, *, actor: Any, version: str | None = None) -> None:
    """Delete the host object; the federation removes every shard first (its finalizer)."""
    require_role(project, actor, WRITE_ROLES)
    live = _live(project, kind, name)
    _current(live, version)
    host.delete(kind, project.namespace, name, uid=live["metadata"].get("uid"))
    record(project, "workload.delete", kind, name, actor=actor, before=live.get("spec"))


def _live(project: Project, kind: str, name: str) -> dict[str, Any]:
    if kind not in KINDS:
        raise NotFound("No such workload.")
    try:
        return host.get(kind, project.namespace, name)
    except NotFound:
        raise NotFound(f"No {kind} named {name} in project {project.name}.") from None


def _check_container(kind: str, spec: dict[str, Any], container: str) -> None:
    problem = container_name(container) if container else None
    if problem is not None:
        raise Invalid.on("container", f"must be a container's name (a DNS-1123 label): {problem}")
    pod_spec = spec.get("template") if kind == "PinApp" else spec
    names = [c.get("name") for c in (pod_spec or {}).get("containers") or []]
    if container not in names:
        raise Invalid.on("container", f"must be one of the workload's containers: {', '.join(map(str, names))}")


def _check_pod(live: dict[str, Any], pod: str) -> None:
    """One of the workload's pods, as the member watch caches know them (the pods the page and the pods API
    list): a name that is not one would be carried to every shard for nothing, or be a path's worth of text."""
    if not host.object_name(pod):
        raise Invalid.on("pod", f"must be a pod's name (a DNS-1123 subdomain of at most 253 characters): {pod!r}")
    meta = live.get("metadata") or {}
    found, problems = pods_of(str(live.get("kind")), str(meta.get("namespace")), str(meta.get("name")))
    if pod not in {p.name for pods in found.values() for p in pods}:
        unsynced = f" (not every cluster's pods are known yet: {'; '.join(problems)})" if problems else ""
        raise Invalid.on("pod", f"must be one of the workload's pods; {pod} is not{unsynced}")


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


def _same_workload(live: dict[str, Any], merged: dict[str, Any]) -> bool:
    """Whether the patched document means what the live one does, as the platform reads them (the typed
    workload: a missing ``paused``, ``stopped`` or ``replicas`` reads as its default), so writing it would
    change nothing but the generation. A live object the core cannot read is never the same."""
    try:
        return parse(live) == parse(merged)
    except SpecInvalid:
        return False


def _relevant(spec: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    return {key: spec.get(key) for key in patch}


def _scalable() -> list[str]:
    return [kind for kind, info in KINDS.items() if info.scalable]
