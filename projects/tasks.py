"""Provisioning tasks: take ids, idempotent, safe to run twice or after a crash half-way.

Each (project, cluster) pair has a ``ClusterProvisioning`` record the project page shows: the generation
the cluster last matched, the state and the last error.
"""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from base.errors import Unavailable
from clusters.models import Cluster
from projects.models import ClusterProvisioning, Project, ProvisioningState
from projects.provisioning import provision_project


@shared_task(name="projects.provision_project_everywhere")
def provision_project_everywhere(project_id: int) -> dict[str, str]:
    """Make every member cluster match the project; one cluster's failure does not stop the others."""
    return {cluster.name: provision_on_cluster(project_id, cluster.pk) for cluster in Cluster.objects.members()}


@shared_task(name="projects.provision_on_cluster")
def provision_on_cluster(project_id: int, cluster_id: int) -> str:
    project = Project.objects.filter(pk=project_id).first()
    cluster = Cluster.objects.filter(pk=cluster_id).first()
    if project is None or cluster is None:
        return "gone"
    record, _ = ClusterProvisioning.objects.get_or_create(project=project, cluster=cluster)
    generation = project.generation
    ClusterProvisioning.objects.filter(pk=record.pk).update(
        state=ProvisioningState.PROVISIONING, last_attempt_at=timezone.now(), attempts=record.attempts + 1
    )
    try:
        provision_project(project, cluster)
    except Unavailable as exc:
        ClusterProvisioning.objects.filter(pk=record.pk).update(state=ProvisioningState.FAILED, last_error=str(exc))
        return ProvisioningState.FAILED
    ClusterProvisioning.objects.filter(pk=record.pk).update(
        state=ProvisioningState.READY, observed_generation=generation, last_error="", last_success_at=timezone.now()
    )
    return ProvisioningState.READY
