"""Cluster health without a page that probes: the newest observation wins, recorded or live.

Recorded: the registry row, written by the ``clusters.probe_all`` task (Celery beat) and the Probe now
button. Live: this process's circuit breaker per cluster, fed by the watch caches, readiness checks and
every call the portal makes. Pages read both and write neither.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from clusters import health, runtime, tasks
from clusters.kube.client import ClusterHealth
from clusters.models import Cluster
from tests.support.factories import make_cluster

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def live(state="closed", success=None, failure=None, error=None) -> ClusterHealth:
    ts = lambda d: None if d is None else d.timestamp()  # noqa: E731
    return ClusterHealth(state, error, ts(success), ts(failure))


@pytest.fixture
def fresh_runtime():
    runtime.shutdown()
    yield runtime
    runtime.shutdown()


def test_a_cluster_never_seen_is_unknown():
    cluster = Cluster(name="c")

    assert health.current_health(cluster, None).state == "unknown"


def test_a_live_success_newer_than_a_failed_probe_is_healthy():
    cluster = Cluster(name="c", healthy=False, last_probe_at=NOW - timedelta(minutes=5), last_error="timeout")

    seen = health.current_health(cluster, live(success=NOW))

    assert seen.state == "healthy" and seen.as_of == NOW and seen.source == "live" and seen.error == ""


def test_a_recorded_probe_newer_than_the_last_live_call_wins():
    cluster = Cluster(name="c", healthy=False, last_probe_at=NOW, last_error="connection refused")

    seen = health.current_health(cluster, live(success=NOW - timedelta(minutes=1)))

    assert seen.state == "unreachable" and seen.source == "probe" and seen.error == "connection refused"


def test_an_open_breaker_is_unreachable_whatever_the_registry_says():
    cluster = Cluster(name="c", healthy=True, last_probe_at=NOW)

    seen = health.current_health(
        cluster, live("open", success=NOW - timedelta(minutes=2), failure=NOW - timedelta(minutes=1), error="refused")
    )

    assert seen.state == "unreachable" and seen.error == "refused" and seen.breaker == "open"


def test_the_cluster_list_reads_health_and_never_probes(admin_client_, fresh_runtime, monkeypatch):
    cluster = make_cluster(
        "host-a",
        role="host",
        healthy=False,
        last_error="old failure",
        last_probe_at=timezone.now() - timedelta(hours=1),
    )
    runtime.pool_for(cluster).breaker(cluster.name).record_success()  # e.g. the watch cache just listed
    monkeypatch.setattr(
        "clusters.kube.client.ClientPool.probe", lambda *_: pytest.fail("a page must not probe clusters")
    )

    listing = admin_client_.get("/clusters/")
    detail = admin_client_.get("/clusters/host-a/")

    assert b"Healthy" in listing.content and b"Unreachable" not in listing.content
    assert b"Healthy" in detail.content
    assert Cluster.objects.get(pk=cluster.pk).last_error == "old failure"  # nothing recorded by a page


def test_the_probe_task_records_every_cluster(fresh_runtime, monkeypatch):
    make_cluster("member-a")
    make_cluster("member-b", last_probe_at=timezone.now())  # fresh or not, the task probes it
    monkeypatch.setattr("clusters.kube.client.ClientPool.probe", lambda self, name: "v1.34.1")

    results = tasks.probe_all()

    assert results == {"member-a": True, "member-b": True}
    assert all(c.healthy and c.version == "v1.34.1" for c in Cluster.objects.all())


def test_a_probe_an_admin_asks_for_is_audited_and_the_periodic_ones_are_not(
    admin_client_, admin_user, fresh_runtime, monkeypatch
):
    from base.models import AuditEvent

    make_cluster("member-a", healthy=False, last_error="timeout")
    monkeypatch.setattr("clusters.kube.client.ClientPool.probe", lambda self, name: "v1.34.1")

    tasks.probe_all()
    assert not AuditEvent.objects.filter(action="cluster.probe").exists()
    response = admin_client_.post("/clusters/member-a/probe/")

    assert response.status_code == 302
    event = AuditEvent.objects.get(action="cluster.probe")
    assert event.actor_id == admin_user.pk and (event.target_kind, event.target_name) == ("Cluster", "member-a")
    assert event.after == {"healthy": True, "version": "v1.34.1", "error": ""}
