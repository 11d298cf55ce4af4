"""Make one cluster match one project: its Namespace, one ResourceQuota per tier, and the LimitRange.

Everything is server-side applied with the portal's field manager (``clusters.provision``), so running
it again converges to the same objects: idempotent, safe to retry after a failure half-way. The quota
numbers are the project's regional TierQuota grants; a tier without a grant gets a zero quota.

This is the first brick of provisioning. RoleBindings, Pod Security labels, the Celery task that runs
it on every member cluster and the per-cluster provisioning state come on top of it.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction
from django.db.models import F
from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import HTTPError

from base.errors import Unavailable
from clusters import provision
from clusters.models import Cluster
from clusters.runtime import api_for
from projects.models import Project
from workloads.core.labels import MANAGED_BY, MANAGED_BY_LABEL, PROJECT_LABEL, TEAM_LABEL
from workloads.core.quantity import Resources
from workloads.core.quota import TierQuota as CoreTierQuota
from workloads.core.quota import limit_range_manifest, resource_quota_manifests
from workloads.core.tiers import Tier

# Not (yet) written by the translator, so not in workloads.core.labels: chargeback reads it from the
# namespace. Move it there when a second writer appears.
COST_CENTER_LABEL = "pincompute.io/cost-center"

_NOT_IN_LABEL_VALUE = re.compile(r"[^A-Za-z0-9_.-]+")


def label_value(text: str) -> str:
    """A valid label value (63 characters of ``[A-Za-z0-9_.-]``, alphanumeric at both ends)."""
    return _NOT_IN_LABEL_VALUE.sub("-", text)[:63].strip("-_.")


def namespace_manifest(project: Project) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": project.namespace,
            "labels": {
                PROJECT_LABEL: project.name,
                TEAM_LABEL: label_value(project.team),
                COST_CENTER_LABEL: label_value(project.cost_center),
                MANAGED_BY_LABEL: MANAGED_BY,
            },
        },
    }


def granted_quota(project: Project) -> CoreTierQuota:
    """The project's regional grants, in the core's terms (every member's ResourceQuota is a backstop at
    the full grant: a workload may be placed on any member)."""
    limits = {Tier.parse(q.tier): Resources(q.cpu_milli, q.memory_bytes, q.gpu) for q in project.quotas.all()}
    return CoreTierQuota(limits)


def project_manifests(project: Project, cluster: Cluster) -> list[dict[str, Any]]:
    """What ``provision_project`` applies, in order (the Namespace first)."""
    namespace = project.namespace
    return [
        namespace_manifest(project),
        *resource_quota_manifests(namespace, granted_quota(project)),
        limit_range_manifest(namespace),
    ]


def provision_project(project: Project, cluster: Cluster) -> list[dict[str, Any]]:
    """Apply the project's Namespace, tier ResourceQuotas and LimitRange on ``cluster``; returns the objects.

    Raises ``Unavailable`` when the cluster refuses or cannot be reached (retrying is safe).
    """
    try:
        return provision.apply_all(api_for(cluster), project_manifests(project, cluster))
    except ApiException as exc:
        raise Unavailable(f"Provisioning {project.name} on {cluster.name} failed: {exc.status} {exc.reason}") from exc
    except (HTTPError, OSError) as exc:
        raise Unavailable(f"Provisioning {project.name} on {cluster.name} failed: {exc}") from exc


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
