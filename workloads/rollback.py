"""Rolling a workload back to one of its revisions (``kubectl rollout undo``): what it would change, and doing it.

A revision is a ControllerRevision the federation keeps of every accepted spec (``federation.revisions``). Going
back writes that revision's spec to the host object as an edit does (``submission.submit_workload``: the same
validation, pod security, grant and growth checks, so a rollback that grows the claim past the grant is refused
like a scale, the same If-Match concurrency), audited as ``workload.rollback``. The operations stay as they are
now (a rollback does not pause, stop or restart what runs); the federation then re-accepts the old spec, whose
revision it finds again by hash and renumbers as the newest, as a Deployment does.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from base.errors import Conflict, Invalid, NotFound
from pincompute.errors import FieldError
from pincompute.federation.revisions import Change, spec_changes
from pincompute.kinds import KINDS
from projects.access import require_role
from projects.models import Project
from workloads import host
from workloads.documents import editable
from workloads.reads import Revision, revisions_of
from workloads.submission import WRITE_ROLES, Accepted, submit_workload


@dataclass(frozen=True)
class Plan:
    """Going back to ``target`` from the live object: the spec it writes and each field that changes."""

    target: Revision
    spec: dict[str, Any]
    changes: list[Change]

    @property
    def changes_nothing(self) -> bool:
        return not self.changes


@dataclass(frozen=True)
class RolledBack:
    """The host object after a rollback to revision ``revision``, and whether anything was written."""

    obj: dict[str, Any]
    revision: int
    changed: bool
    changes: list[Change]


def plan_rollback(live: dict[str, Any], revisions: list[Revision], number: int | None) -> Plan:
    """Going back to revision ``number`` (None: the newest one that is not current, ``rollout undo``'s default);
    ``Invalid`` naming ``revision`` when there is no such revision."""
    target = _target(revisions, number)
    spec = copy.deepcopy(target.spec)
    operations = (live.get("spec") or {}).get("operations")
    spec.pop("operations", None)
    if operations is not None:
        spec["operations"] = copy.deepcopy(operations)  # what runs keeps its pause, stop and restart requests
    return Plan(target, spec, spec_changes(live.get("spec") or {}, spec))


def _target(revisions: list[Revision], number: int | None) -> Revision:
    numbers = ", ".join(str(r.number) for r in revisions) or "none yet"
    if number is None:
        earlier = [r for r in revisions if not r.current]
        if not earlier:
            raise Invalid.on("revision", f"there is no earlier revision to go back to (revisions: {numbers})")
        return earlier[0]
    found = next((r for r in revisions if r.number == number), None)
    if found is None:
        raise Invalid.on("revision", f"must be one of the workload's revisions ({numbers}); {number} is not")
    return found


def rollback_workload(
    project: Project, kind: str, name: str, *, revision: int | None, actor: Any, version: str | None = None
) -> RolledBack:
    """Write revision ``revision``'s spec (None: the previous one) to the workload, as an edit conditional on
    ``version`` (If-Match). A rollback that changes nothing writes nothing and records nothing."""
    require_role(project, actor, WRITE_ROLES)
    if not project.is_active:
        raise Conflict(f"Project {project.name} is archived.")
    if kind not in KINDS:
        raise NotFound("No such workload.")
    try:
        live = host.get(kind, project.namespace, name)
    except NotFound:
        raise NotFound(f"No {kind} named {name} in project {project.name}.") from None
    plan = plan_rollback(live, revisions_of(live), revision)
    if version and version != host.version_of(live):
        raise Conflict(
            f"{kind} {name} changed since you read it: you saw version {version}, the live version is "
            f"{host.version_of(live)}.",
            fields=[FieldError("version", f"is {host.version_of(live)}")],
        )
    if plan.changes_nothing:
        return RolledBack(live, plan.target.number, changed=False, changes=[])
    document = editable(live) | {"spec": plan.spec}
    accepted: Accepted = submit_workload(
        project,
        document,
        actor=actor,
        version=version or host.version_of(live),
        must_exist=True,
        action="workload.rollback",
        summary=f"rolled back to revision {plan.target.number} ({plan.target.name})",
    )
    return RolledBack(accepted.manifest, plan.target.number, changed=True, changes=plan.changes)
