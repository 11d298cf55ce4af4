"""A project's network openings: the ports its owners open to named projects or to the ingress.

The members' NetworkPolicies (``pincompute.netpol``, applied with the rest of the tenancy) admit the project's
own pods, the platform's namespaces (``NETWORK_PLATFORM_NAMESPACES``) and these openings; nothing else reaches
the project's pods. Everyone in the project reads them; owners and platform admins replace them (the whole
list at once: the page's add and remove are replacements too), audited, and every member follows
(``project_changed``). A named project must exist, be active and be visible to the one who names it.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from base import audit
from base.errors import FieldError, Invalid
from pincompute.netpol import MAX_OPENINGS, MAX_PORT, MIN_PORT, Protocol
from projects import provisioning
from projects.access import lock_project, require_active, require_role
from projects.models import Project, ProjectState
from projects.network_plan import OpeningInput, openings_of

PROTOCOLS = tuple(p.value for p in Protocol)
MAX_NAMED_PROJECTS = 20  # per opening


def _port(value: Any, path: str, errors: list[FieldError]) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_PORT <= value <= MAX_PORT:
        errors.append(FieldError(f"{path}.port", f"Give a port number from {MIN_PORT} to {MAX_PORT}."))
        return 0
    return value


def _names(value: Any, path: str, errors: list[FieldError]) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        errors.append(FieldError(f"{path}.projects", "Give a list of project names."))
        return ()
    if len(value) > MAX_NAMED_PROJECTS:
        errors.append(FieldError(f"{path}.projects", f"Name at most {MAX_NAMED_PROJECTS} projects per opening."))
        return ()
    return tuple(sorted({n.strip() for n in value if n.strip()}))


def parse_opening(raw: Any, path: str, errors: list[FieldError]) -> OpeningInput | None:
    """One opening of a request body (``port``, ``protocol``, ``projects``, ``ingress``); problems go to ``errors``."""
    if not isinstance(raw, dict):
        errors.append(FieldError(path, "Give an object with port, protocol, projects and ingress."))
        return None
    unknown = sorted(set(raw) - {"port", "protocol", "projects", "ingress"})
    if unknown:
        errors.append(FieldError(f"{path}.{unknown[0]}", "Not a field of an opening."))
    port = _port(raw.get("port"), path, errors)
    protocol = raw.get("protocol", Protocol.TCP.value)
    if protocol not in PROTOCOLS:
        errors.append(FieldError(f"{path}.protocol", f"Use one of {', '.join(PROTOCOLS)}."))
    ingress = raw.get("ingress", False)
    if not isinstance(ingress, bool):
        errors.append(FieldError(f"{path}.ingress", "Give true or false."))
    names = _names(raw.get("projects", []), path, errors)
    if not names and ingress is not True:
        errors.append(FieldError(f"{path}.projects", "Name a project, or open the port to the ingress."))
    return OpeningInput(port, str(protocol), names, ingress is True)


def parse_openings(raw: Any) -> list[OpeningInput]:
    """The ``openings`` list of a request body; ``Invalid`` naming every bad field (``openings[2].port``)."""
    if not isinstance(raw, list):
        raise Invalid.on("openings", "Give a list of openings.")
    if len(raw) > MAX_OPENINGS:
        raise Invalid.on("openings", f"A project has at most {MAX_OPENINGS} openings.")
    errors: list[FieldError] = []
    parsed = [parse_opening(item, f"openings[{i}]", errors) for i, item in enumerate(raw)]
    if errors:
        raise Invalid(fields=errors[:20])
    return [o for o in parsed if o is not None]


def _check_projects(project: Project, openings: list[OpeningInput], actor: Any) -> None:
    """Every named project exists, is active, is visible to ``actor`` and is not this one."""
    named = {n for o in openings for n in o.projects}
    active = Project.objects.visible_to(actor).filter(name__in=named, state=ProjectState.ACTIVE)
    found = set(active.values_list("name", flat=True))
    errors = []
    for i, opening in enumerate(openings):
        for name in opening.projects:
            if name == project.name:
                errors.append(FieldError(f"openings[{i}].projects", f"{name} already reaches its own pods."))
            elif name not in found:
                missing = f"There is no active project {name!r} you can see."
                errors.append(FieldError(f"openings[{i}].projects", missing))
    if errors:
        raise Invalid(fields=errors[:20])


def set_openings(project: Project, raw: Any, *, actor: Any) -> list[OpeningInput]:
    """Replace the project's openings (owners and platform admins; authorization before the body is read)."""
    require_role(project, actor)
    openings = parse_openings(raw)
    _check_projects(project, openings, actor)
    with transaction.atomic():
        project = lock_project(project)
        require_active(project)
        before = [o.body() for o in openings_of(project)]
        after = [o.body() for o in openings]
        if before == after:
            return openings
        project.network_openings = after
        project.save(update_fields=["network_openings"])
        audit.record(
            "project.network.set",
            actor=actor,
            target_kind="Project",
            target_name=project.name,
            project=project.name,
            before={"openings": before},
            after={"openings": after},
            summary=f"Network openings: {len(after)}",
        )
        provisioning.project_changed(project)
    return openings
