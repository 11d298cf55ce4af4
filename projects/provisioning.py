"""Make one cluster match one project (the Django side: read the models, apply the core's manifests).

What a cluster holds for a project is decided in ``pincompute.tenancy``: on the host, the namespace
and the ``ProjectQuota`` federation admission counts against; on every member, the namespace (identity
and Pod Security labels), the project ClusterRoles (read-only: tenants write nothing on members) and a
RoleBinding per project role, one ResourceQuota per tier, the LimitRange and the NetworkPolicies that isolate it
(``projects.network``: the openings its owners made).
Everything is server-side applied by name with the portal's field manager (``clusters.provision``), so
running it again converges to the same objects: idempotent, safe to retry after a crash half-way.

``project_changed`` is what services call when something the clusters follow changes; the Celery tasks
that run this module per cluster and keep the per-cluster records are in ``projects.tasks``.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from base import metrics
from base.errors import Unavailable
from base.queueing import enqueue
from clusters import provision, remote
from clusters.kube.breaker import CircuitOpen
from clusters.models import Cluster, FederationRole
from pincompute.federation_rights import BINDING_NAME, PORTAL_BINDING_NAME, right_of
from pincompute.labels import COST_CENTER_LABEL
from pincompute.policy import parse_policy
from pincompute.rbac import ProjectRole, Subject
from pincompute.tenancy import PodSecurity, Tenant, host_manifests, label_value, member_manifests
from pincompute.tiers import Tier
from projects.models import Project
from projects.network_plan import plan_of

__all__ = [
    "COST_CENTER_LABEL",
    "NotAttempted",
    "label_value",
    "manifests_for",
    "project_changed",
    "provision_project",
    "remove_project",
    "tenant_of",
]

# How long one run on one cluster may take in all (every object, every retry): a cluster that accepts connections
# but does not answer writes (its etcd is down) costs this, not attempts x read timeout (60 s). Inline (the embedded
# default runs tasks in the HTTP request, or in the dev command's reconcile thread) a request waits a few seconds
# at most per sick cluster; a worker allows more for a loaded apiserver, still well within the task's time limit.
EAGER_DEADLINE_SECONDS = 5.0
WORKER_DEADLINE_SECONDS = 15.0


def deadline_seconds() -> float:
    return EAGER_DEADLINE_SECONDS if settings.CELERY_TASK_ALWAYS_EAGER else WORKER_DEADLINE_SECONDS


class NotAttempted(Unavailable):
    """Refused by this process's open circuit breaker before any request reached the cluster: not an attempt
    (the provisioning backoff does not grow while the portal itself holds the calls back)."""


class _DeadlinePassed(Exception):
    """Raised instead of another attempt once a run's deadline has passed (not retried: not a transport error)."""


class _Run:
    """One run on one cluster: its deadline, and whether any request went out (``through_breaker`` calls ``fn``
    only when the breaker lets it)."""

    def __init__(self, cluster: Cluster, *, trial: bool) -> None:
        self.cluster, self.trial = cluster, trial
        self.seconds = deadline_seconds()
        self.deadline = time.monotonic() + self.seconds
        self.reached = False

    def timeout(self) -> tuple[float, float]:
        """(connect, read) for the next request: the default, cut to the time left."""
        left = self.deadline - time.monotonic()
        if left <= 0.05:
            raise _DeadlinePassed
        connect, read = provision.DEFAULT_TIMEOUT
        return min(connect, left), min(read, left)

    def call(self, fn: Any) -> Any:
        def sent() -> Any:
            self.reached = True
            return fn()

        return remote.through_breaker(self.cluster, sent, trial=self.trial)

    def guarded(self, where: str, fn: Any) -> Any:
        try:
            return remote.guarded(where, fn)
        except _DeadlinePassed as exc:
            raise Unavailable(f"{where}: the cluster did not answer within {self.seconds:g} s; retried later") from exc
        except Unavailable as exc:
            if isinstance(exc.__cause__, CircuitOpen) and not self.reached:
                raise NotAttempted(exc.message) from exc.__cause__
            raise


def tenant_of(project: Project) -> Tenant:
    """The project as the core sees it: identity, Pod Security level, subjects per role (members and live
    time-limited roles), grants per tier, network openings, policy."""
    subjects: dict[ProjectRole, list[Subject]] = {}
    for membership in project.memberships.select_related("user", "group"):
        subject = (
            Subject("User", membership.user.get_username())
            if membership.user_id
            else Subject("Group", membership.group.name)
        )
        subjects.setdefault(ProjectRole(membership.role), []).append(subject)
    for grant in project.access_grants.filter(
        access__in=[role.value for role in ProjectRole], ends_at__gt=timezone.now()
    ).select_related("user"):
        # a time-limited role: bound until the expiry task closes it and provisions the project again
        subjects.setdefault(ProjectRole(grant.access), []).append(Subject("User", grant.user.get_username()))
    grants = {Tier.parse(q.tier): q.allocation for q in project.quotas.all()}
    return Tenant(
        name=project.name,
        namespace=project.namespace,
        team=project.team,
        cost_center=project.cost_center,
        pod_security=PodSecurity(project.pod_security),
        subjects={role: tuple(sorted(set(s))) for role, s in subjects.items()},
        grants=grants,
        network=plan_of(project),
        policy=parse_policy(project.policy or {}),
        host_rights=(
            *right_of(PORTAL_BINDING_NAME, settings.PORTAL_CONFIGS_ROLE, settings.PORTAL_CONFIGS_USERNAMES),
            *right_of(BINDING_NAME, settings.FEDERATION_HOST_CONFIGS_ROLE, [settings.FEDERATION_OPERATOR_USERNAME]),
        ),
        member_rights=right_of(
            BINDING_NAME, settings.FEDERATION_MEMBER_COPIES_ROLE, [settings.FEDERATION_MEMBER_OPERATOR_USERNAME]
        ),
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
    run = _Run(cluster, trial=trial)
    return run.guarded(where, lambda: provision.apply_all(api, manifests, call=run.call, timeout=run.timeout))


@metrics.counted(metrics.PROVISIONING, metrics.PROVISIONING_SECONDS, action="remove")
def remove_project(project: Project, cluster: Cluster, *, trial: bool = False) -> bool:
    """Delete the project's namespace on ``cluster`` (and with it everything provisioning put inside it).

    Returns True once the namespace is gone; until then it is terminating, and calling again is safe.
    """
    where = _where(project, cluster)
    api = remote.client(cluster, where)
    run = _Run(cluster, trial=trial)
    return run.guarded(
        where,
        lambda: run.call(lambda: provision.delete(api, "v1", "Namespace", project.namespace, timeout=run.timeout())),
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
