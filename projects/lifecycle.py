"""A project's description, its Pod Security level, and archiving it.

The name never changes (it is the namespace). Team and cost center are labels on the namespace, and the
Pod Security level is enforced there, so changing them calls ``project_changed``; archiving does too, and
provisioning then removes what it created. A project is archived only once its workloads are gone.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.live_access import access_changed
from base import audit
from base.errors import Conflict, Invalid, Unavailable
from base.permissions import is_platform_admin
from projects import provisioning
from projects.access import lock_project, require_active, require_platform_admin, require_role
from projects.grants import release_grants
from projects.headroom import project_usage
from projects.models import PodSecurity, Project, ProjectRole, ProjectState, QuotaRequest, QuotaRequestState
from projects.onboarding import text_error

EDITABLE = ("display_name", "team", "cost_center", "description")
_ON_THE_NAMESPACE = ("team", "cost_center")


def update_project(project: Project, changes: dict[str, Any], *, actor: Any) -> Project:
    """Edit what describes a project (owners and platform admins). Raises ``Invalid`` for unknown or
    bad fields, ``NotFound``/``Forbidden``, ``Conflict`` when archived."""
    require_role(project, actor)
    errors: dict[str, str] = {}
    for name in sorted(set(changes) - set(EDITABLE)):
        errors[name] = f"{name} cannot be changed here; editable: {', '.join(EDITABLE)}."
    clean: dict[str, str] = {}
    for name in EDITABLE:
        if name not in changes:
            continue
        value = changes[name]
        if not isinstance(value, str):
            errors[name] = "Give text."
            continue
        problem = text_error(name, value)
        if problem:
            errors[name] = problem
        clean[name] = value.strip()
    if errors:
        raise Invalid.on_fields(errors)
    with transaction.atomic():
        project = lock_project(project)
        require_active(project)
        before = {name: getattr(project, name) for name in EDITABLE}
        for name, value in clean.items():
            setattr(project, name, value)
        old, new = audit.changed_fields(before, {name: getattr(project, name) for name in EDITABLE})
        if not new:
            return project
        project.save(update_fields=list(new))
        audit.record(
            "project.update",
            actor=actor,
            target_kind="Project",
            target_name=project.name,
            project=project.name,
            before=old,
            after=new,
            summary=f"Changed {', '.join(sorted(new))}",
        )
        if set(new) & set(_ON_THE_NAMESPACE):
            provisioning.project_changed(project)
    return project


def set_pod_security(project: Project, level: str, *, actor: Any) -> Project:
    """Set the Pod Security admission level of the project's namespaces (platform admins only; a member
    gets ``Forbidden``, anyone else ``NotFound``)."""
    if not is_platform_admin(actor):
        require_role(project, actor, tuple(ProjectRole.values))
        require_platform_admin(actor, "change the Pod Security level")
    if level not in PodSecurity.values:
        raise Invalid.on("pod_security", f"{level!r} is not a level; use one of {', '.join(PodSecurity.values)}.")
    with transaction.atomic():
        project = lock_project(project)
        require_active(project)
        before = project.pod_security
        if before == level:
            return project
        project.pod_security = level
        project.save(update_fields=["pod_security"])
        audit.record(
            "project.pod_security.set",
            actor=actor,
            target_kind="Project",
            target_name=project.name,
            project=project.name,
            before={"pod_security": before},
            after={"pod_security": level},
        )
        provisioning.project_changed(project)
    return project


def set_shell_recording(project: Project, enabled: bool, *, actor: Any) -> Project:
    """Turn the recording of shell transcripts on or off (owners and platform admins; off by default). Shells
    opened afterwards are recorded (``debugging.shell.recording``); their replays are for owners and admins only."""
    require_role(project, actor)
    with transaction.atomic():
        project = lock_project(project)
        require_active(project)
        before = project.record_shells
        if before == enabled:
            return project
        project.record_shells = enabled
        project.save(update_fields=["record_shells"])
        audit.record(
            "project.shell_recording.set",
            actor=actor,
            target_kind="Project",
            target_name=project.name,
            project=project.name,
            before={"record_shells": before},
            after={"record_shells": enabled},
            summary=f"Shell recording {'on' if enabled else 'off'}",
        )
    return project


def archive_project(project: Project, *, actor: Any) -> Project:
    """Archive a project whose workloads are gone (owners and platform admins): its grants are released,
    pending requests rejected, and provisioning removes its namespaces.

    Raises ``Conflict`` naming the workloads still in the watch caches (or when already archived) and
    ``Unavailable`` when a cache is not synced (the workloads cannot be known)."""
    require_role(project, actor)
    with transaction.atomic():
        project = lock_project(project)
        require_active(project)
        usage = project_usage(project)
        if usage.workloads:
            names = ", ".join(f"{w.kind}/{w.name}" for w in usage.workloads)
            raise Conflict(f"{project.name} still has workloads; delete them first: {names}.")
        if not usage.complete:
            raise Unavailable(
                "Cannot tell whether the project still has workloads: " + "; ".join(usage.problems), retry_after=10
            )
        released = release_grants(project, actor=actor, reason="Released: project archived")
        now = timezone.now()
        rejected = list(
            QuotaRequest.objects.filter(project=project, state=QuotaRequestState.PENDING).values_list("pk", flat=True)
        )
        QuotaRequest.objects.filter(pk__in=rejected).update(
            state=QuotaRequestState.REJECTED,
            decided_by=actor,
            decided_at=now,
            decision_reason="The project was archived.",
        )
        project.state, project.archived_at = ProjectState.ARCHIVED, now
        project.save(update_fields=["state", "archived_at"])
        audit.record(
            "project.archive",
            actor=actor,
            target_kind="Project",
            target_name=project.name,
            project=project.name,
            before={"state": ProjectState.ACTIVE, "grants": released},
            after={"state": ProjectState.ARCHIVED, "rejected_requests": rejected},
        )
        provisioning.project_changed(project)
        reached = {uid for pair in project.memberships.values_list("user_id", "group__user__id") for uid in pair if uid}
        access_changed(reached, reason="project archived", project=project.name)
    return project
