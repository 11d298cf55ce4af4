"""Provisioning tasks: take ids, idempotent, safe to run twice or after a crash half-way.

Each (project, cluster) pair has a ``ClusterProvisioning`` record the project page shows: the state,
the generation the cluster last matched, the attempts since the last success, the last error and the
last success. A task killed half-way leaves its record in ``provisioning`` behind the project's
generation; the next run (the periodic ``reconcile_all``, a retry, or the next change) re-applies
everything by name and converges, so nothing is ever created twice.

- ``provision_project_everywhere(project_id)``: queued by ``project_changed`` on commit; fans out to
  one ``provision_on_cluster`` per cluster (the host and every member).
- ``provision_on_cluster(project_id, cluster_id)``: an active project is applied; an archived one has
  its namespace deleted (state ``removing`` until the namespace is gone, then ``removed``).
- ``reconcile_all()``: Celery beat (``PROVISIONING_RECONCILE_SECONDS``); in the embedded default the dev
  command runs it in a thread. Queues every pair whose record is missing (a newly registered cluster
  has none), behind the generation, failed (with backoff), stuck, being removed, or older than
  ``PROVISIONING_RESYNC_MINUTES`` (drift repair).
- ``retry_on_cluster(project_id, cluster_id, actor=...)``: the project page's retry button, for a failed record
  or one stuck in ``provisioning``/``removing`` for longer than a run can last (``RETRY_STUCK_SECONDS``).

A worker's pool process killed mid-task (SIGKILL, out of memory) does not lose the task: with acks_late and
``CELERY_TASK_REJECT_ON_WORKER_LOST`` the broker hands it out again. A task that kills its worker every time
would loop: once it was handed out again ``WORKER_LOST_LIMIT`` times without finishing, it gives up as failed.
``provision_on_cluster`` has a time limit (each run on a cluster has a deadline: ``projects.provisioning``), so a
record older than that in ``provisioning`` is not running any more.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from celery import current_task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.urls import reverse
from django.utils import timezone

from base import audit
from base.errors import NotFound, ServiceError
from base.queueing import enqueue
from clusters.models import Cluster
from notifications.models import Event, Severity
from notifications.services import notify
from pincompute.kube.retry import exponential
from projects.access import require_role
from projects.audience import members_of
from projects.models import ClusterProvisioning, Project, ProjectRole, ProjectState, ProvisioningState
from projects.provisioning import NotAttempted, provision_project, remove_project

RETRY_ROLES = (ProjectRole.OWNER, ProjectRole.DEVELOPER)  # who may run a pair now (platform admins too)
MAX_PASSES = 5  # re-applies in one run while the project keeps changing under it
BACKOFF_BASE = timedelta(seconds=30)  # a failed pair waits 30 s, 60 s, ... up to BACKOFF_CAP
BACKOFF_CAP = timedelta(minutes=15)
# provision_on_cluster on a worker: the soft limit marks the record failed, the hard one kills the process (acked
# as failed, never handed out again). Its runs have a deadline each (provisioning.WORKER_DEADLINE_SECONDS).
PROVISIONING_SOFT_TIME_LIMIT = 90
PROVISIONING_TIME_LIMIT = 120
RETRY_STUCK_SECONDS = PROVISIONING_TIME_LIMIT + 30  # in provisioning for longer: not running, Retry is offered
WORKER_LOST_LIMIT = 3  # handed out again this often after its worker died mid-run: give up as failed


def resync_after() -> timedelta:
    return timedelta(minutes=settings.PROVISIONING_RESYNC_MINUTES)


def stuck_after() -> timedelta:
    """An attempt this old that never finished was killed (its worker died): the reconcile pass runs it again."""
    return timedelta(seconds=settings.PROVISIONING_STUCK_SECONDS)


@shared_task(name="projects.provision_project_everywhere")
def provision_project_everywhere(project_id: int) -> list[str]:
    """Queue one provisioning per cluster (the host first, then the members); returns their names."""
    if not Project.objects.filter(pk=project_id).exists():
        return []
    clusters = list(Cluster.objects.all())  # ordered by role: the host, then the members
    for cluster in clusters:
        provision_on_cluster.delay(project_id, cluster.pk)
    return [cluster.name for cluster in clusters]


@shared_task(name="projects.provision_new_cluster")
def provision_new_cluster(cluster_id: int) -> int:
    """A newly registered cluster gets every active project; returns how many were queued."""
    if not Cluster.objects.filter(pk=cluster_id).exists():
        return 0
    project_ids = list(Project.objects.active().values_list("pk", flat=True))
    for project_id in project_ids:
        provision_on_cluster.delay(project_id, cluster_id)
    return len(project_ids)


def _redelivered() -> bool:
    """Is the running task a message the broker handed out again (its worker died before acknowledging it)?"""
    request = current_task.request if current_task else None
    return bool(((request and request.delivery_info) or {}).get("redelivered"))


@shared_task(
    name="projects.provision_on_cluster",
    soft_time_limit=PROVISIONING_SOFT_TIME_LIMIT,
    time_limit=PROVISIONING_TIME_LIMIT,
)
def provision_on_cluster(project_id: int, cluster_id: int) -> str:
    """Make ``cluster`` match the project (or remove the project there once archived); returns the state.
    A run someone asked for (Retry put the failed record back to pending) goes through an open circuit
    breaker as its trial call: the apiserver may be back before the breaker's cool-off ends."""
    project = Project.objects.filter(pk=project_id).first()
    cluster = Cluster.objects.filter(pk=cluster_id).first()
    if project is None or cluster is None:
        return "gone"
    record, _ = ClusterProvisioning.objects.get_or_create(project=project, cluster=cluster)
    unfinished = record.state in (ProvisioningState.PROVISIONING, ProvisioningState.REMOVING)
    if unfinished and record.attempts >= WORKER_LOST_LIMIT and _redelivered():
        _mark(
            record,
            ProvisioningState.FAILED,
            last_error=f"{project.name} on {cluster.name}: the worker running this died {record.attempts} times "
            "before it finished (killed, or out of memory); not run again until Retry or the periodic pass",
        )
        return ProvisioningState.FAILED
    retry = record.state == ProvisioningState.PENDING and record.attempts > 0  # only Retry makes this
    try:
        return _provision(record, project, cluster, retry=retry)
    except SoftTimeLimitExceeded:
        _mark(
            record,
            ProvisioningState.FAILED,
            last_error=f"{project.name} on {cluster.name}: took longer than {PROVISIONING_SOFT_TIME_LIMIT} s; "
            "retried later",
        )
        return ProvisioningState.FAILED


def _provision(record: ClusterProvisioning, project: Project, cluster: Cluster, *, retry: bool) -> str:
    project_id = project.pk
    if not project.is_active:
        return _remove(record, project, cluster, retry=retry)
    _mark(record, ProvisioningState.PROVISIONING, attempts=F("attempts") + 1, last_attempt_at=timezone.now())
    for _pass in range(MAX_PASSES):
        generation = project.generation
        if not project.is_active:
            return _remove(record, project, cluster, retry=retry)
        try:
            provision_project(project, cluster, trial=retry)
        except ServiceError as exc:
            _failed(record, exc)
            return ProvisioningState.FAILED
        fresh = Project.objects.filter(pk=project_id).first()
        if fresh is None:
            return "gone"
        if fresh.generation == generation:
            break
        project = fresh  # changed while we applied: apply the newer state before saying ready
    _mark(
        record,
        ProvisioningState.READY,
        observed_generation=Greatest(F("observed_generation"), generation),
        attempts=0,
        last_error="",
        last_success_at=timezone.now(),
    )
    return ProvisioningState.READY


def _remove(record: ClusterProvisioning, project: Project, cluster: Cluster, *, retry: bool = False) -> str:
    generation = project.generation
    _mark(record, ProvisioningState.REMOVING, attempts=F("attempts") + 1, last_attempt_at=timezone.now())
    try:
        gone = remove_project(project, cluster, trial=retry)
    except ServiceError as exc:
        _failed(record, exc)
        return ProvisioningState.FAILED
    if not gone:
        return ProvisioningState.REMOVING  # terminating: the next run (reconcile_all) sees it gone
    _mark(
        record,
        ProvisioningState.REMOVED,
        observed_generation=Greatest(F("observed_generation"), generation),
        attempts=0,
        last_error="",
        last_success_at=timezone.now(),
    )
    return ProvisioningState.REMOVED


def _mark(record: ClusterProvisioning, state: str, **fields: Any) -> None:
    ClusterProvisioning.objects.filter(pk=record.pk).update(state=state, **fields)


def _failed(record: ClusterProvisioning, exc: ServiceError) -> None:
    """Record the failure. A run the open circuit breaker refused before it reached the cluster is not an
    attempt: the attempts and the time of the last one stay as they were (``record`` is as read before the
    run), so the backoff does not grow while the cluster is back and only the portal's breaker is cooling off."""
    if isinstance(exc, NotAttempted):
        _mark(
            record,
            ProvisioningState.FAILED,
            attempts=record.attempts,
            last_attempt_at=record.last_attempt_at,
            last_error=exc.message,
        )
    else:
        _mark(record, ProvisioningState.FAILED, last_error=exc.message)
        _tell_failed(record, exc.message)


def _tell_failed(record: ClusterProvisioning, error: str) -> None:
    """The project's owners hear of each failed attempt; repeats fold into one notification with a count."""
    project, cluster = record.project, record.cluster
    notify(
        Event.PROVISIONING_FAILED,
        recipients=members_of(project, (ProjectRole.OWNER,)),
        project=project,
        text=f"Provisioning {project.name} on {cluster.name} failed: {error}",
        link=reverse("projects:detail", args=[project.name]),
        key=f"provisioning/{project.pk}/{cluster.pk}",
        occurrence=timezone.now().isoformat(),
        severity=Severity.ERROR,
    )


@dataclass(frozen=True)
class _Seen:
    """One record, as ``reconcile_all`` reads it."""

    state: str
    observed_generation: int
    attempts: int
    last_attempt_at: datetime | None
    last_success_at: datetime | None


def is_due(seen: _Seen | None, *, generation: int, active: bool, now: datetime, force: bool = False) -> bool:
    """Does this (project, cluster) pair need a run now?"""
    if force:
        return active or (seen is not None and seen.state != ProvisioningState.REMOVED)
    if seen is None:
        return active  # never provisioned there (a new project, or a newly registered cluster)
    in_flight = seen.state in (ProvisioningState.PROVISIONING, ProvisioningState.REMOVING)
    if in_flight and seen.last_attempt_at and now - seen.last_attempt_at < stuck_after():
        return seen.state == ProvisioningState.REMOVING  # removal: look again whether the namespace is gone
    if seen.state == ProvisioningState.FAILED:
        wait = timedelta(
            seconds=exponential(max(seen.attempts - 1, 0), BACKOFF_BASE.total_seconds(), BACKOFF_CAP.total_seconds())
        )
        return seen.last_attempt_at is None or now - seen.last_attempt_at >= wait
    if not active:
        return seen.state != ProvisioningState.REMOVED
    if seen.state != ProvisioningState.READY or seen.observed_generation < generation:
        return True
    return seen.last_success_at is None or now - seen.last_success_at >= resync_after()


@shared_task(name="projects.reconcile_all")
def reconcile_all(force: bool = False) -> dict[str, int]:
    """Queue every (project, cluster) pair that is due (see ``is_due``; ``force``: every active project
    everywhere, and every removal not finished, e.g. at the dev command's start); returns counts."""
    now = timezone.now()
    cluster_ids = list(Cluster.objects.values_list("pk", flat=True))
    seen = {
        (row["project_id"], row["cluster_id"]): _Seen(
            row["state"], row["observed_generation"], row["attempts"], row["last_attempt_at"], row["last_success_at"]
        )
        for row in ClusterProvisioning.objects.values(
            "project_id",
            "cluster_id",
            "state",
            "observed_generation",
            "attempts",
            "last_attempt_at",
            "last_success_at",
        )
    }
    due = [
        (project_id, cluster_id)
        for project_id, generation, state in Project.objects.values_list("pk", "generation", "state")
        for cluster_id in cluster_ids
        if is_due(
            seen.get((project_id, cluster_id)),
            generation=generation,
            active=state == ProjectState.ACTIVE,
            now=now,
            force=force,
        )
    ]
    for project_id, cluster_id in due:
        provision_on_cluster.delay(project_id, cluster_id)
    return {"pairs": len(seen), "queued": len(due)}


def retry_stuck_before(now: datetime) -> datetime:
    """A record in ``provisioning`` or ``removing`` whose attempt began before this is not running any more
    (its worker died, the task was lost): Retry is offered for it, as for a failed one."""
    return now - timedelta(seconds=RETRY_STUCK_SECONDS)


def retryable(record: ClusterProvisioning | None, now: datetime) -> bool:
    """Whether Retry is offered for ``record``: failed, or stuck in ``provisioning``/``removing`` since before
    ``retry_stuck_before`` (the one rule of the page's button and of ``retry_on_cluster``)."""
    if record is None:
        return False
    if record.state == ProvisioningState.FAILED:
        return True
    stuck_states = (ProvisioningState.PROVISIONING, ProvisioningState.REMOVING)
    started = record.last_attempt_at
    return record.state in stuck_states and (started is None or started < retry_stuck_before(now))


def retry_on_cluster(project_id: int, cluster_id: int, *, actor: Any) -> None:
    """The page's retry button: run this pair now, whatever its backoff (queued once the caller commits).
    A record stuck in ``provisioning``/``removing`` (``retry_stuck_before``) is put back to pending like a failed
    one (the page offers Retry for it: templates/projects/partials/provisioning.html).

    Owners, developers and platform admins may retry; another tenant's project is NotFound."""
    project = Project.objects.filter(pk=project_id).first()
    cluster = Cluster.objects.filter(pk=cluster_id).first()
    if project is None or cluster is None:
        raise NotFound("No such project or cluster.")
    require_role(project, actor, RETRY_ROLES)
    with transaction.atomic():
        audit.record(
            "project.provisioning.retry",
            actor=actor,
            target_kind="Project",
            target_name=project.name,
            project=project.name,
            cluster=cluster.name,
        )
        record = ClusterProvisioning.objects.select_for_update().filter(project=project, cluster=cluster).first()
        if record is not None and retryable(record, timezone.now()):
            record.state = ProvisioningState.PENDING
            record.save(update_fields=["state"])
        transaction.on_commit(lambda: enqueue(provision_on_cluster, project_id, cluster_id))
