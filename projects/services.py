"""Read helpers and named write actions for projects."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Sum

from base import audit
from base.errors import Conflict, Invalid
from projects.models import Membership, Project, ProjectRole, Tier, TierQuota
from workloads.core.quantity import format_cpu, format_memory


def quota_rows_for(projects: Iterable[Project]) -> dict[int, list[dict[str, Any]]]:
    """Granted quota per tier summed over member clusters, for many projects in one query.

    Each row carries raw amounts (for charts) and formatted ones (for tables)."""
    ids = [p.pk for p in projects]
    totals: dict[tuple[int, str], dict[str, Any]] = {
        (row["project_id"], row["tier"]): row
        for row in TierQuota.objects.filter(project_id__in=ids)
        .values("project_id", "tier")
        .annotate(cpu=Sum("cpu_milli"), mem=Sum("memory_bytes"), gpu=Sum("gpu"))
    }
    rows: dict[int, list[dict[str, Any]]] = {}
    for pk in ids:
        rows[pk] = []
        for tier in Tier:
            row = totals.get((pk, tier.value), {})
            cpu, mem = row.get("cpu") or 0, row.get("mem") or 0
            rows[pk].append(
                {
                    "tier": tier.value,
                    "label": tier.label,
                    "cpu_milli": cpu,
                    "memory_bytes": mem,
                    "cpu": format_cpu(cpu),
                    "memory": format_memory(mem),
                    "gpu": row.get("gpu") or 0,
                }
            )
    return rows


def project_quota_rows(project: Project) -> list[dict[str, Any]]:
    return quota_rows_for([project])[project.pk]


def create_project(
    *, name: str, team: str, cost_center: str, actor: Any, display_name: str = "", description: str = ""
) -> Project:
    with transaction.atomic():
        if Project.objects.filter(name=name).exists():
            raise Conflict.on("name", f"A project named {name!r} already exists.")
        project = Project(
            name=name, team=team, cost_center=cost_center, display_name=display_name, description=description
        )
        try:
            project.full_clean()
        except ValidationError as exc:
            raise Invalid.on_fields({field: " ".join(msgs) for field, msgs in exc.message_dict.items()}) from exc
        project.save()
        audit.record(
            "project.create",
            actor=actor,
            target_kind="Project",
            target_name=name,
            project=name,
            after={"team": team, "cost_center": cost_center},
        )
    return project


PROJECT_EDITABLE = ("display_name", "team", "cost_center", "description")


def update_project(*, project: Project, changes: dict[str, Any], actor: Any) -> Project:
    """Edit what describes a project; its name is its namespace and never changes."""
    unknown = sorted(set(changes) - set(PROJECT_EDITABLE))
    if unknown:
        raise Invalid.on(unknown[0], f"{', '.join(unknown)} cannot be changed.")
    with transaction.atomic():
        project = Project.objects.select_for_update().get(pk=project.pk)
        before = {name: getattr(project, name) for name in PROJECT_EDITABLE}
        for name, value in changes.items():
            setattr(project, name, value)
        try:
            project.full_clean()
        except ValidationError as exc:
            raise Invalid.on_fields({field: " ".join(msgs) for field, msgs in exc.message_dict.items()}) from exc
        project.save()
        old, new = audit.changed_fields(before, {name: getattr(project, name) for name in PROJECT_EDITABLE})
        if new:
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
    return project


def add_member(*, project: Project, user: Any, role: str, actor: Any) -> None:
    """Add ``user`` to ``project`` with ``role``, or change the role of an existing member."""
    if role not in ProjectRole.values:
        raise Invalid.on("role", f"{role!r} is not a role; use one of {', '.join(ProjectRole.values)}.")
    with transaction.atomic():
        membership, created = Membership.objects.get_or_create(project=project, user=user, defaults={"role": role})
        before = None if created else membership.role
        if not created and membership.role != role:
            membership.role = role
            membership.save(update_fields=["role"])
        if created or before != role:
            audit.record(
                "project.member.set",
                actor=actor,
                target_kind="Membership",
                target_name=user.get_username(),
                project=project.name,
                before={"role": before},
                after={"role": role},
            )


def remove_member(*, project: Project, user: Any, actor: Any) -> None:
    """Take ``user`` out of ``project``; removing a non-member changes nothing."""
    with transaction.atomic():
        membership = Membership.objects.select_for_update().filter(project=project, user=user).first()
        if membership is None:
            return
        membership.delete()
        audit.record(
            "project.member.remove",
            actor=actor,
            target_kind="Membership",
            target_name=user.get_username(),
            project=project.name,
            before={"role": membership.role},
            after=None,
        )


def _check_amounts(amounts: dict[str, Any]) -> None:
    """Whole, non-negative numbers the quota table can store (no silent overflow in the database)."""
    errors: dict[str, str] = {}
    for name, value in amounts.items():
        _, top = connection.ops.integer_field_range(TierQuota._meta.get_field(name).get_internal_type())
        if not isinstance(value, int) or isinstance(value, bool):
            errors[name] = "Give a whole number."
        elif not 0 <= value <= top:
            errors[name] = f"Give a whole number between 0 and {top}."
    if errors:
        raise Invalid.on_fields(errors)


def grant_quota(
    *, project: Project, cluster: Any, tier: str, cpu_milli: int, memory_bytes: int, gpu: int, actor: Any
) -> None:
    if tier not in Tier.values:
        raise Invalid.on("tier", f"{tier!r} is not a tier; use one of {', '.join(Tier.values)}.")
    _check_amounts({"cpu_milli": cpu_milli, "memory_bytes": memory_bytes, "gpu": gpu})
    with transaction.atomic():
        quota, _ = TierQuota.objects.select_for_update().get_or_create(project=project, cluster=cluster, tier=tier)
        before = {"cpu_milli": quota.cpu_milli, "memory_bytes": quota.memory_bytes, "gpu": quota.gpu}
        quota.cpu_milli, quota.memory_bytes, quota.gpu = cpu_milli, memory_bytes, gpu
        quota.save()
        after = {"cpu_milli": cpu_milli, "memory_bytes": memory_bytes, "gpu": gpu}
        if before != after:
            audit.record(
                "project.quota.set",
                actor=actor,
                target_kind="TierQuota",
                target_name=f"{project.name}/{cluster.name}/{tier}",
                project=project.name,
                cluster=cluster.name,
                before=before,
                after=after,
            )
