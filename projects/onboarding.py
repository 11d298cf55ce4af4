"""Self-service onboarding: a project with its members and tier grants, in one atomic step.

The wizard checks one step at a time (``check_basics``, ``check_members``, ``check_quotas``); each
raises ``Invalid`` with every field error of its step at once (paths ``name``, ``members[1].name``,
``quotas.reserved.cpu``). ``onboard_project`` runs them all again and writes: the project, its members (the
creator as an owner unless listed or a platform admin), its grants, the audit rows, then
``project_changed``. A grant the auto-approve limit or the region's headroom does not cover becomes a
pending QuotaRequest instead of failing the onboarding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction

from base import audit
from base.errors import Conflict, FieldError, Invalid
from base.permissions import is_platform_admin
from base.text import hidden_character
from pincompute.grants import Allocation
from pincompute.policy import policy_document
from pincompute.tiers import Tier
from projects import provisioning
from projects.access import require_signed_in
from projects.grants import (
    QuotaInput,
    auto_approve_limit,
    judge,
    lock_tiers,
    open_request,
    parse_quota_input,
    tier_error,
    tier_named,
    write_grant,
)
from projects.members import MAX_MEMBERS, MemberInput, member_errors
from projects.models import Membership, Project, ProjectRole, TierQuota
from projects.policy import default_policy

NAME_MAX = 40  # the namespace is proj-<name>: 45 of a label's 63 characters, room for suffixes
_NAME = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?", re.ASCII)
TEXT_LIMITS = {"display_name": 120, "team": 80, "cost_center": 40, "description": 2000}
REQUIRED_TEXT = ("team", "cost_center")


@dataclass
class ProjectDraft:
    """What the wizard (or the API) collected; ``quotas`` is keyed by tier label (``reserved``...)."""

    name: str
    display_name: str = ""
    team: str = ""
    cost_center: str = ""
    description: str = ""
    members: list[MemberInput] = field(default_factory=list)
    quotas: dict[str, QuotaInput] = field(default_factory=dict)


RESERVED_NAMES = frozenset({"new", "tutorial", "requests"})  # pages under /projects/ (projects/urls.py)


def name_error(name: str) -> str | None:
    """Why ``name`` cannot be a project name (a DNS label under ``proj-``), or None."""
    if not name:
        return "Give the project a name."
    if not name.isascii():
        return "Use only a-z, 0-9 and '-': no accents or other scripts."
    if len(name) > NAME_MAX:
        return f"Use at most {NAME_MAX} characters (the namespace is proj-<name>); this one has {len(name)}."
    if name != name.lower():
        return "Use lowercase letters: the name becomes the namespace proj-<name>."
    if not name[0].isalpha():
        return "Start with a letter."
    if name.endswith("-"):
        return "End with a letter or digit."
    if not _NAME.fullmatch(name):
        return "Use only lowercase letters, digits and '-'."
    if name in RESERVED_NAMES:
        return f"{name!r} is reserved: /projects/{name}/ is a portal page."
    return None


def text_error(name: str, value: str) -> str | None:
    """Why ``value`` cannot be the project's ``name`` (a key of ``TEXT_LIMITS``), or None."""
    top = TEXT_LIMITS[name]
    if name in REQUIRED_TEXT and not value.strip():
        return f"Give the {name.replace('_', ' ')}."
    if len(value.strip()) > top:
        return f"Use at most {top} characters; this has {len(value.strip())}."
    if "\x00" in value:  # PostgreSQL text cannot hold it
        return "Remove the NUL character (\\x00)."
    if name != "description":  # a description is prose (line breaks and all); the short fields are labels
        return hidden_character(value)
    return None


def _basics_errors(draft: ProjectDraft) -> dict[str, str]:
    errors: dict[str, str] = {}
    problem = name_error(draft.name)
    if problem:
        errors["name"] = problem
    for name in TEXT_LIMITS:
        problem = text_error(name, getattr(draft, name))
        if problem:
            errors[name] = problem
    return errors


def check_basics(draft: ProjectDraft) -> None:
    """Name, display name, team, cost center and description; a taken name is ``Conflict`` on ``name``."""
    errors = _basics_errors(draft)
    if errors:
        raise Invalid.on_fields(errors)
    _check_name_free(draft.name)


def _check_name_free(name: str) -> None:
    if Project.objects.filter(name=name).exists():
        raise Conflict.on("name", f"A project named {name!r} already exists.")


def _members_errors(draft: ProjectDraft, creator: Any) -> tuple[dict[str, str], list[tuple[MemberInput, Any]]]:
    if len(draft.members) > MAX_MEMBERS:  # refused before one lookup per member
        return {
            "members": f"List at most {MAX_MEMBERS} users or groups; this lists {len(draft.members)}. Add a team "
            "as an OIDC group instead."
        }, []
    errors: dict[str, str] = {}
    resolved: list[tuple[MemberInput, Any]] = []
    seen: dict[tuple[str, str], int] = {}
    for index, member in enumerate(draft.members):
        path = f"members[{index}]"
        found, subject = member_errors(member, path)
        errors.update(found)
        key = (member.kind, member.name.strip())
        if key in seen and f"{path}.name" not in found:
            errors[f"{path}.name"] = f"{member.name.strip()} is already listed (members[{seen[key]}])."
            continue
        seen[key] = index
        if subject is not None:
            resolved.append((member, subject))
    owners = sum(1 for member, _ in resolved if member.role == ProjectRole.OWNER)
    if _joins_as_owner(creator) and ("user", creator.get_username()) not in seen:
        owners += 1
    if owners == 0 and not errors:
        errors["members"] = "A project needs at least one owner."
    return errors, resolved


def _joins_as_owner(creator: Any) -> bool:
    """A creator not listed joins as an owner, unless a platform admin (who has every right anyway, and
    onboards projects for teams without becoming their member)."""
    return creator is not None and not is_platform_admin(creator)


def check_members(draft: ProjectDraft, *, creator: Any = None) -> None:
    """Every member names a known user or group, once, with a role; at least one owner (``creator``,
    when given and not listed, joins as an owner unless a platform admin)."""
    errors, _ = _members_errors(draft, creator)
    if errors:
        raise Invalid.on_fields(errors)


def _parse_quotas(draft: ProjectDraft) -> tuple[dict[str, str], dict[Tier, Allocation]]:
    errors: dict[str, str] = {}
    grants: dict[Tier, Allocation] = {}
    for key, data in draft.quotas.items():
        tier = tier_named(key)
        if tier is None:
            errors[f"quotas.{key}"] = tier_error(key)
            continue
        try:
            grants[tier] = parse_quota_input(data, prefix=f"quotas.{tier.label}.")
        except Invalid as exc:
            errors.update({f.path: f.message for f in exc.fields})
    return errors, grants


def check_quotas(draft: ProjectDraft) -> None:
    """Every quantity is well-formed, non-negative, finite and storable, and fits what the region's
    pools have left (``quotas.<tier>.<resource>``)."""
    errors, grants = _parse_quotas(draft)
    for tier, grant in grants.items():
        verdict = judge(tier, Allocation(), grant, usage=Allocation(), auto_approve=None)
        for excess in verdict.over_headroom:
            errors[f"quotas.{tier.label}.{excess.resource}"] = f"{excess.message}."
    if errors:
        raise Invalid.on_fields(errors)


def onboard_project(draft: ProjectDraft, *, actor: Any) -> Project:
    """Create the project with its members and grants, atomically; any signed-in user may.

    Raises ``Invalid`` with every field error of every step, ``Conflict`` on ``name`` when it is taken.
    Grants beyond the auto-approve limit (platform admins have none) or the region's headroom become
    pending requests."""
    require_signed_in(actor)
    member_problems, members = _members_errors(draft, actor)
    quota_problems, grants = _parse_quotas(draft)
    errors = {**_basics_errors(draft), **member_problems, **quota_problems}
    if errors:
        raise Invalid(fields=[FieldError(path, text) for path, text in errors.items()])
    _check_name_free(draft.name)
    limit = None if is_platform_admin(actor) else auto_approve_limit()
    with transaction.atomic():
        lock_tiers([tier for tier, grant in grants.items() if grant != Allocation()])
        project = _create(draft)
        listed = {(m.kind, m.name.strip()) for m, _ in members}
        if _joins_as_owner(actor) and ("user", actor.get_username()) not in listed:
            members.insert(0, (MemberInput("user", actor.get_username(), ProjectRole.OWNER), actor))
        for member, subject in members:
            lookup = {"user": subject} if member.kind == "user" else {"group": subject}
            membership = Membership.objects.create(project=project, role=member.role, **lookup)
            audit.record(
                "project.member.set",
                actor=actor,
                target_kind="Membership",
                target_name=membership.subject,
                project=project.name,
                after={"role": member.role},
            )
        TierQuota.objects.bulk_create([TierQuota(project=project, tier=tier.label) for tier in Tier])
        pending = []
        for tier, grant in grants.items():
            if grant == Allocation():
                continue
            verdict = judge(tier, Allocation(), grant, usage=Allocation(), auto_approve=limit)
            if verdict.applies_at_once:
                write_grant(project, tier, grant, actor=actor, reason="Granted at onboarding")
            else:
                open_request(
                    project, tier, Allocation(), grant, actor=actor, reason="Asked for at onboarding", verdict=verdict
                )
                pending.append(tier.label)
        audit.record(
            "project.create",
            actor=actor,
            target_kind="Project",
            target_name=project.name,
            project=project.name,
            after={
                **{name: getattr(project, name) for name in ("display_name", "team", "cost_center", "description")},
                "members": [f"{m.kind}:{m.name.strip()}={m.role}" for m, _ in members],
                "quotas": {tier.label: grant.to_json() for tier, grant in grants.items()},
                "pending": pending,
                "policy": project.policy,
            },
        )
        provisioning.project_changed(project)
    return project


def _create(draft: ProjectDraft) -> Project:
    try:
        with transaction.atomic():
            return Project.objects.create(
                name=draft.name,
                display_name=draft.display_name.strip(),
                team=draft.team.strip(),
                cost_center=draft.cost_center.strip(),
                description=draft.description.strip(),
                policy=policy_document(default_policy()),
            )
    except IntegrityError:
        raise Conflict.on("name", f"A project named {draft.name!r} already exists.") from None
