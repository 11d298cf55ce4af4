"""A project's ownership: its team, its on-call contact and its links (repository, docs, runbook, dashboards).

Every member reads it (the project page, ``/api/v1/projects/<p>/ownership/``, ``pincompute owners get``); owners and
platform admins replace it through ``set_ownership``, audited. The checks are the platform library's
(``pincompute.ownership``), the ones a workload's annotations get; a workload that sets none takes its project's.
The team is also a label on the project's namespaces, so a new team is provisioned like one from the basics form.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from base import audit
from base.errors import FieldError, Invalid
from pincompute.ownership import Link, Ownership, oncall_problem, parse_links
from projects import provisioning
from projects.access import lock_project, require_active, require_role
from projects.models import Project
from projects.onboarding import text_error

FIELDS = ("team", "oncall", "links")


def ownership_of(project: Project) -> Ownership:
    """What the project's row holds (checked when it was written)."""
    links = tuple(Link(str(x["kind"]), str(x["title"]), str(x["url"])) for x in project.links or ())
    return Ownership(project.team, project.oncall, links)


def parse_ownership(body: Any) -> tuple[str | None, str, tuple[Link, ...]]:
    """``{"team"?, "oncall", "links"}`` checked: the team (None: kept), the on-call contact ("" for none) and the
    links. ``Invalid`` names every bad field (``oncall``, ``links[1].url``)."""
    if not isinstance(body, dict):
        raise Invalid.on("", 'Give {"team": ..., "oncall": ..., "links": [...]}.')
    errors: list[FieldError] = [
        FieldError(k, f"Not a field; give {', '.join(FIELDS)}.") for k in body if k not in FIELDS
    ]
    team = body.get("team")
    if team is not None:
        if not isinstance(team, str):
            errors.append(FieldError("team", "Give text."))
        elif problem := text_error("team", team):
            errors.append(FieldError("team", problem))
    oncall = body.get("oncall", "")
    if not isinstance(oncall, str):
        errors.append(FieldError("oncall", "Give text."))
    elif problem := oncall_problem(oncall.strip()):
        errors.append(FieldError("oncall", problem))
    links = parse_links(body.get("links", []), "links", errors)
    if errors:
        raise Invalid(fields=errors[:20])
    return (team.strip() if isinstance(team, str) else None), str(oncall).strip(), links


def set_ownership(project: Project, body: Any, *, actor: Any) -> Ownership:
    """Replace the project's on-call contact and links, and its team when given (owners and platform admins;
    authorization before the body is read). Raises ``Invalid``, ``NotFound``/``Forbidden``, ``Conflict`` when
    archived."""
    require_role(project, actor)
    team, oncall, links = parse_ownership(body)
    with transaction.atomic():
        project = lock_project(project)
        require_active(project)
        before = ownership_of(project).body()
        project.team = project.team if team is None else team
        project.oncall, project.links = oncall, [link.body() for link in links]
        after = ownership_of(project).body()
        old, new = audit.changed_fields(before, after)
        if not new:
            return ownership_of(project)
        project.save(update_fields=list(new))
        audit.record(
            "project.ownership.set",
            actor=actor,
            target_kind="Project",
            target_name=project.name,
            project=project.name,
            before=old,
            after=new,
            summary=f"Changed {', '.join(sorted(new))}",
        )
        if "team" in new:  # a label on the project's namespaces
            provisioning.project_changed(project)
    return ownership_of(project)
