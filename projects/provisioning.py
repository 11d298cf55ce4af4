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

from collections.abc import Callable
from typing import Any, TypeVar

import yaml
from django.db import transaction
from django.db.models import F
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException
from kubernetes.dynamic.exceptions import ResourceNotFoundError
from urllib3.exceptions import HTTPError

from base.errors import ServiceError, Unavailable, Unprocessable
from clusters import provision
from clusters.kube.breaker import CircuitOpen
from clusters.kube.retry import describe, is_transient
from clusters.models import Cluster, FederationRole
from clusters.runtime import api_for, pool_for
from projects.models import Project
from workloads.core.kube.rawapi import status_message
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
T = TypeVar("T")
APPLY_ATTEMPTS = 3


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


def provision_project(project: Project, cluster: Cluster, *, trial: bool = False) -> list[dict[str, Any]]:
    """Apply what ``cluster`` must hold for ``project``; returns the applied objects. ``trial``: someone
    asked for this run (Retry), so an open circuit breaker lets it through as its trial call.

    Raises ``Unavailable`` when the cluster cannot be reached or answers with a retryable error, and
    ``Unprocessable`` when it refuses (a kind it does not serve, a rejected object): retrying is safe.
    """
    manifests = manifests_for(project, cluster)
    api = _api(project, cluster)
    return _guarded(
        project,
        cluster,
        lambda: provision.apply_all(api, manifests, call=lambda fn: _through_breaker(cluster, fn, trial=trial)),
    )


def remove_project(project: Project, cluster: Cluster, *, trial: bool = False) -> bool:
    """Delete the project's namespace on ``cluster`` (and with it everything provisioning put inside it).

    Returns True once the namespace is gone; until then it is terminating, and calling again is safe.
    """
    api = _api(project, cluster)
    return _guarded(
        project,
        cluster,
        lambda: _through_breaker(
            cluster, lambda: provision.delete(api, "v1", "Namespace", project.namespace), trial=trial
        ),
    )


# What loading a kubeconfig raises: the client's own error, or its parser's on a file that is cut short,
# not a mapping, or holds bad base64 (a YAML error, TypeError, ValueError...).
_UNLOADABLE = (ConfigException, yaml.YAMLError, TypeError, ValueError, KeyError, AttributeError)


def _api(project: Project, cluster: Cluster) -> ApiClient:
    """The cluster's client; credentials that cannot be loaded are ``Unprocessable`` (recorded on the
    cluster's row, retried after the file is fixed), never an unexpected error after a saved change."""
    try:
        return api_for(cluster)
    except _UNLOADABLE as exc:
        raise Unprocessable(
            f"{project.name} on {cluster.name}: the cluster's credentials cannot be loaded from "
            f"{cluster.credentials_reference}: {type(exc).__name__}: {exc}"
        ) from exc


def _through_breaker(cluster: Cluster, fn: Callable[[], T], *, trial: bool = False) -> T:
    """The cluster's circuit breaker and retry policy (a dead cluster fails fast for the next projects).

    ``trial``: a person asked for this call (Retry, typically once the apiserver is back), so an open
    breaker does not refuse it for the rest of its cool-off: one call goes through as its trial, and
    the answer closes the breaker (or keeps it open) for everyone."""
    pool = pool_for(cluster)
    breaker = pool.breaker(cluster.name)
    if not trial or breaker.state == "closed":
        return pool.run(cluster.name, fn, attempts=APPLY_ATTEMPTS)
    try:
        result = fn()
    except ApiException as exc:
        if is_transient(exc):
            breaker.record_failure(exc)
        else:
            breaker.record_success()  # the cluster answered
        raise
    except (HTTPError, OSError) as exc:
        breaker.record_failure(exc)
        raise
    breaker.record_success()
    return result


def _guarded(project: Project, cluster: Cluster, fn: Callable[[], T]) -> T:
    where = f"{project.name} on {cluster.name}"
    try:
        return fn()
    except CircuitOpen as exc:
        raise Unavailable(f"{where}: {exc}") from exc
    except ResourceNotFoundError as exc:
        raise Unprocessable(f"{where}: the cluster does not serve {exc}; install the platform there") from exc
    except ApiException as exc:
        error: type[ServiceError] = Unavailable if is_transient(exc) or exc.status == 409 else Unprocessable
        hint = " (a kind it does not serve? install the platform there: install-crds)" if exc.status == 404 else ""
        raise error(f"{where}: {status_message(exc)}{hint}") from exc
    except (HTTPError, OSError) as exc:
        raise Unavailable(f"{where}: {describe(exc)}") from exc
    except ConfigException as exc:  # the registry row names a kubeconfig or context that is not there
        raise Unprocessable(f"{where}: the cluster's credentials cannot be loaded: {exc}") from exc


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

    provision_project_everywhere.delay(project_id)
