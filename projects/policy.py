"""A project's policy (``pincompute.policy``) as the portal stores it, and the platform's defaults for new projects.

Platform admins set both; a project's members read its policy (a member's write is ``Forbidden``, anyone else's
``NotFound``). A project's policy is a document on its row (``Project.policy``); a change is audited with before and
after and provisioned: the host namespace's ``pincompute.io/policy`` annotation is what the host's admission webhook
judges kubectl writes by, while the portal's submission judges by the row (``policy_of``), with the same function.
The defaults are one ``PolicyDefaults`` row (until the first edit, ``settings.PROJECT_POLICY_DEFAULTS``), copied
into a project when it is onboarded.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from base import audit
from base.errors import Invalid
from base.permissions import is_platform_admin
from pincompute.errors import SpecInvalid
from pincompute.policy import ProjectPolicy, parse_policy, policy_document
from projects import provisioning
from projects.access import lock_project, require_active, require_platform_admin, require_role
from projects.models import PolicyDefaults, Project, ProjectRole

DEFAULTS_PK = 1


def policy_of(project: Project) -> ProjectPolicy:
    """The policy the project is under (its stored document was checked when it was written)."""
    return parse_policy(project.policy or {})


def read_project_policy(project: Project, *, actor: Any) -> dict[str, Any]:
    """The project's policy document, for anyone who can see the project (``NotFound`` otherwise)."""
    require_role(project, actor, tuple(ProjectRole.values))
    return policy_document(policy_of(project))


def default_policy() -> ProjectPolicy:
    """The policy a project onboarded now starts with."""
    row = PolicyDefaults.objects.filter(pk=DEFAULTS_PK).first()
    return parse_policy(row.document if row is not None else settings.PROJECT_POLICY_DEFAULTS)


def read_policy_defaults(*, actor: Any) -> dict[str, Any]:
    require_platform_admin(actor, "read the policy defaults")
    return policy_document(default_policy())


def _checked(document: object) -> ProjectPolicy:
    try:
        return parse_policy(document)
    except SpecInvalid as exc:
        raise Invalid("The policy is invalid.", fields=exc.fields) from None


def require_policy_writer(project: Project, actor: Any) -> None:
    """Platform admins only: a member of the project is ``Forbidden``, anyone else gets ``NotFound``."""
    if not is_platform_admin(actor):
        require_role(project, actor, tuple(ProjectRole.values))
        require_platform_admin(actor, "change a project's policy")


def set_project_policy(project: Project, document: object, *, actor: Any) -> Project:
    """Replace the project's policy with ``document`` (platform admins; every field of it optional, an absent one
    left open). Raises ``Invalid`` naming each bad field, ``Forbidden``/``NotFound``, ``Conflict`` when archived."""
    require_policy_writer(project, actor)
    after = policy_document(_checked(document))
    with transaction.atomic():
        project = lock_project(project)
        require_active(project)
        before = policy_document(policy_of(project))
        if before == after:
            return project
        project.policy = after
        project.save(update_fields=["policy"])
        audit.record(
            "project.policy.set",
            actor=actor,
            target_kind="Project",
            target_name=project.name,
            project=project.name,
            before=before,
            after=after,
            summary="Changed the project's policy",
        )
        provisioning.project_changed(project)  # the host namespace's annotation, which admission reads
    return project


def set_policy_defaults(document: object, *, actor: Any) -> dict[str, Any]:
    """Replace the policy new projects start with (platform admins; existing projects keep theirs)."""
    require_platform_admin(actor, "change the policy defaults")
    after = policy_document(_checked(document))
    with transaction.atomic():
        row = PolicyDefaults.objects.select_for_update().filter(pk=DEFAULTS_PK).first()
        before = policy_document(parse_policy(row.document if row else settings.PROJECT_POLICY_DEFAULTS))
        if row is not None and before == after:
            return after
        PolicyDefaults.objects.update_or_create(pk=DEFAULTS_PK, defaults={"document": after})
        audit.record(
            "policy.defaults.set",
            actor=actor,
            target_kind="PolicyDefaults",
            target_name="defaults",
            before=before,
            after=after,
            summary="Changed the policy defaults for new projects",
        )
    return after
