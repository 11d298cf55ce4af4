"""Provisioning against a sick cluster: bounded in time (#6), not lost with a killed worker (#7), and a run
refused by the portal's open circuit breaker (it never reached the cluster) is not an attempt for the backoff."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone
from urllib3.exceptions import ReadTimeoutError

from clusters.kube.breaker import CircuitBreaker
from clusters.models import Cluster
from pincompute.kube.retry import call_with_retry
from projects import tasks
from projects.models import ClusterProvisioning, Project, ProvisioningState
from tests.support.projects_pages import HX, text


class Pool:
    """The cluster's breaker and retry policy, as ``ClientPool.run`` has them."""

    def __init__(self) -> None:
        self.br = CircuitBreaker("member-a")

    def breaker(self, name: str) -> CircuitBreaker:
        return self.br

    def run(self, name, fn, *, attempts: int, **options):
        return call_with_retry(lambda: self.br.call(fn), attempts=attempts, **options)


@pytest.fixture
def sick(monkeypatch):
    """member-a accepts connections but never answers a write (its etcd is down): each request waits its read
    timeout (capped at 1 s here) and times out."""
    pool = Pool()
    seen: list[float] = []

    def request(api, method, path, query, timeout, **kwargs):
        seen.append(timeout[1])
        time.sleep(min(timeout[1], 1.0))
        raise ReadTimeoutError(None, path, f"Read timed out. (read timeout={timeout[1]})")

    monkeypatch.setattr("clusters.remote.pool_for", lambda cluster: pool)
    monkeypatch.setattr("projects.provisioning.remote.client", lambda cluster, where: object())
    monkeypatch.setattr("clusters.provision.rawapi.request", request)
    return pool, seen


@pytest.fixture
def pair(db):
    cluster = Cluster.objects.create(
        name="member-a", region="r", zone="r-a", role="member", api_server="https://127.0.0.1:1"
    )
    project = Project.objects.create(name="ads", team="ads", cost_center="CC-1")
    return project, cluster


def test_a_cluster_that_never_answers_costs_one_bounded_deadline_not_three_read_timeouts(sick, pair, monkeypatch):
    from projects import provisioning

    monkeypatch.setattr(provisioning, "deadline_seconds", lambda: 0.6, raising=False)
    pool, seen = sick
    project, cluster = pair

    started = time.monotonic()
    state = tasks.provision_on_cluster(project.pk, cluster.pk)
    took = time.monotonic() - started

    record = ClusterProvisioning.objects.get(project=project, cluster=cluster)
    assert state == record.state == ProvisioningState.FAILED
    assert took < 1.5, took  # before: 3 attempts of the full read timeout
    assert seen and max(seen) <= 0.6
    assert "member-a" in record.last_error and record.attempts == 1
    assert pool.br.failures >= 1  # the timeout counts toward the cluster's breaker


def test_the_deadline_is_short_inline_and_longer_on_a_worker(settings):
    from projects import provisioning

    settings.CELERY_TASK_ALWAYS_EAGER = True
    assert provisioning.deadline_seconds() <= 5
    settings.CELERY_TASK_ALWAYS_EAGER = False
    assert 5 < provisioning.deadline_seconds() < tasks.PROVISIONING_TIME_LIMIT


def test_a_run_refused_by_the_open_breaker_is_not_an_attempt(sick, pair):
    pool, seen = sick
    project, cluster = pair
    before = timezone.now() - timedelta(minutes=3)
    ClusterProvisioning.objects.create(
        project=project, cluster=cluster, state="failed", attempts=2, last_attempt_at=before, last_error="x"
    )
    for _ in range(pool.br.threshold):
        pool.br.record_failure(OSError("down"))
    assert pool.br.state == "open"

    assert tasks.provision_on_cluster(project.pk, cluster.pk) == ProvisioningState.FAILED

    record = ClusterProvisioning.objects.get(project=project, cluster=cluster)
    assert not seen  # never reached the cluster
    assert record.attempts == 2 and record.last_attempt_at == before
    assert "circuit open" in record.last_error


def test_a_run_that_reached_the_cluster_before_the_breaker_opened_is_an_attempt(sick, pair, monkeypatch):
    from projects import provisioning

    monkeypatch.setattr(provisioning, "deadline_seconds", lambda: 0.3, raising=False)
    pool, seen = sick
    pool.br.threshold = 1  # the first timeout opens it: the retry is refused
    project, cluster = pair

    tasks.provision_on_cluster(project.pk, cluster.pk)

    assert seen and ClusterProvisioning.objects.get(project=project, cluster=cluster).attempts == 1


# --- #7: a killed worker --------------------------------------------------------------------------------


def test_retry_is_offered_after_a_run_could_have_lasted():
    assert tasks.RETRY_STUCK_SECONDS > tasks.PROVISIONING_TIME_LIMIT


def test_a_task_whose_pool_process_is_killed_is_redelivered_not_lost():
    from console.celery import app

    assert settings.CELERY_TASK_ACKS_LATE and settings.CELERY_TASK_REJECT_ON_WORKER_LOST
    task = app.tasks["projects.provision_on_cluster"]
    assert task.acks_late and task.reject_on_worker_lost
    assert task.time_limit == tasks.PROVISIONING_TIME_LIMIT and task.soft_time_limit < task.time_limit


def test_a_task_redelivered_again_and_again_after_its_worker_died_gives_up_as_failed(pair, monkeypatch):
    """A task that kills its worker (out of memory every time) must not loop: after a few redeliveries of a
    run that never finished, the record says so and waits for Retry or the periodic pass."""
    project, cluster = pair
    ClusterProvisioning.objects.create(
        project=project,
        cluster=cluster,
        state="provisioning",
        attempts=tasks.WORKER_LOST_LIMIT,
        last_attempt_at=timezone.now(),
    )
    monkeypatch.setattr(tasks, "_redelivered", lambda: True)
    monkeypatch.setattr(tasks, "provision_project", lambda *a, **k: pytest.fail("ran again"))

    assert tasks.provision_on_cluster(project.pk, cluster.pk) == ProvisioningState.FAILED
    record = ClusterProvisioning.objects.get(project=project, cluster=cluster)
    assert "worker" in record.last_error


def stuck(project, cluster, seconds):
    return ClusterProvisioning.objects.create(
        project=project,
        cluster=cluster,
        state="provisioning",
        attempts=1,
        last_attempt_at=timezone.now() - timedelta(seconds=seconds),
    )


def test_retry_takes_a_record_stuck_in_provisioning_but_not_one_still_running(pair, admin_user):
    project, cluster = pair
    other = Cluster.objects.create(name="member-b", region="r", zone="r-b", role="member", api_server="https://x:1")
    old = stuck(project, cluster, tasks.RETRY_STUCK_SECONDS + 5)
    running = stuck(project, other, 5)

    tasks.retry_on_cluster(project.pk, cluster.pk, actor=admin_user)
    tasks.retry_on_cluster(project.pk, other.pk, actor=admin_user)

    old.refresh_from_db()
    running.refresh_from_db()
    assert old.state == ProvisioningState.PENDING
    assert running.state == ProvisioningState.PROVISIONING


def test_the_page_offers_retry_for_a_record_stuck_in_provisioning(project, owner, client):
    a, b = Cluster.objects.get(name="member-a"), Cluster.objects.get(name="member-b")
    stuck(project, a, tasks.RETRY_STUCK_SECONDS + 5)
    stuck(project, b, 5)

    client.force_login(owner)
    page = text(client.get("/projects/ads/provisioning/", **HX))

    assert 'action="/projects/ads/provisioning/member-a/retry/"' in page
    assert 'action="/projects/ads/provisioning/member-b/retry/"' not in page
