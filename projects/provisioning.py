"""Make one cluster match one project (the Django side: read the models, apply the core's manifests).

What a cluster holds for a project is decided in ``workloads.core.tenancy``: on the host, the namespace
and the ``ProjectQuota`` federation admission counts against; on every member, the namespace (identity
and Pod Security labels), RoleBindings per project role, one ResourceQuota per tier and the LimitRange.
Everything is server-side applied by name with the portal's field manager (``clusters.provision``), so
running it again converges to the same objects: idempotent, safe to retry after a crash half-way.

``project_changed`` is what services call when something the clusters follow changes; the Celery tasks
that run this module per cluster and keep the per-cluster records are in ``projects.tasks``.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import F

from base import metrics
from base.queueing import enqueue
from clusters import provision, remote
from clusters.models import Cluster, FederationRole
from projects.models import Project
from workloads.core.labels import COST_CENTER_LABEL
from workloads.core.rbac import ProjectRole, Subject
from workloads.core.tenancy import PodSecurity, Tenant, host_manifests, label_value, member_manifests
from workloads.core.tiers import Tier

__all__ = [
    "COST_CENTER_LABEL",
    "label_value",
    "manifests_for",
    "project_changed",
    "provision_project",
    "remove_project",
    "tenant_of",
]


def tenant_of(project: Project) -> Tenant:
    """The project as the core sees it: identity, Pod Security level, subjects per role, grants per tier."""
    subjects: dict[ProjectRole, list[Subject]] = {}
    for membership in project.memberships.select_related("user", "group"):
        subject = (
            Subject("User", membership.user.get_username())
            if membership.user_id
            else Subject("Group", membership.group.name)
        )
        subjects.setdefault(ProjectRole(membership.role), []).append(subject)
    grants = {Tier.parse(q.tier): q.allocation for q in project.quotas.all()}
    return Tenant(
        name=project.name,
        namespace=project.namespace,
        team=project.team,
        cost_center=project.cost_center,
        pod_security=PodSecurity(project.pod_security),
        subjects={role: tuple(sorted(s)) for role, s in subjects.items()},
        grants=grants,
    )


def manifests_for(project: Project, cluster: Cluster) -> list[dict[str, Any]]:
    """What ``provision_project`` applies on ``cluster``, in order (the namespace first)."""
    tenant = tenant_of(project)
    return host_manifests(tenant) if cluster.role == FederationRole.HOST else member_manifests(tenant)


@metrics.counted(metrics.PROVISIONING, metrics.PROVISIONING_SECONDS, action="apply")
def provision_project(project: Project, cluster: Cluster, *, trial: bool = False) -> list[dict[str, Any]]:
    """Apply what ``cluster`` must hold for ``project``; returns the applied objects. ``trial``: someone
    asked for this run (Retry), so an open circuit breaker lets it through as its trial call.

    Raises ``Unavailable`` when the cluster cannot be reached or answers with a retryable error, and
    ``Unprocessable`` when it refuses (a kind it does not serve, a rejected object): retrying is safe.
    """
    manifests = manifests_for(project, cluster)
    where = _where(project, cluster)
    api = remote.client(cluster, where)
    return remote.guarded(
        where,
        lambda: provision.apply_all(api, manifests, call=lambda fn: remote.through_breaker(cluster, fn, trial=trial)),
    )


@metrics.counted(metrics.PROVISIONING, metrics.PROVISIONING_SECONDS, action="remove")
def remove_project(project: Project, cluster: Cluster, *, trial: bool = False) -> bool:
    """Delete the project's namespace on ``cluster`` (and with it everything provisioning put inside it).

    Returns True once the namespace is gone; until then it is terminating, and calling again is safe.
    """
    where = _where(project, cluster)
    api = remote.client(cluster, where)
    return remote.guarded(
        where,
        lambda: remote.through_breaker(
            cluster, lambda: provision.delete(api, "v1", "Namespace", project.namespace), trial=trial
        ),
    )


def _where(project: Project, cluster: Cluster) -> str:
    return f"{project.name} on {cluster.name}"


def project_changed(project: Project) -> None:
    """Call inside the transaction of every change the clusters must follow (members, quota, Pod Security
    level, archive): bumps the project's generation and, once the transaction commits, queues the task
    that makes every cluster match it."""
    Project.objects.filter(pk=project.pk).update(generation=F("generation") + 1)
    project.refresh_from_db(fields=["generation"])
    project_id = project.pk
    transaction.on_commit(lambda: _queue(project_id))


def _queue(project_id: int) -> None:
    from projects.tasks import provision_project_everywhere

    enqueue(provision_project_everywhere, project_id)
