import threading

import pytest

from console.health import forget_cached_checks

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_checks(settings):
    """Each test sees its own checks (the results are cached per process for READYZ_CACHE_SECONDS)."""
    settings.READYZ_PROBE_TOKEN = "probe-secret"
    forget_cached_checks()
    yield
    forget_cached_checks()


PROBE = {"HTTP_AUTHORIZATION": "Bearer probe-secret"}


def unreachable_cluster():
    from clusters.models import Cluster

    return Cluster.objects.create(
        name="gone",
        region="r",
        zone="z",
        role="member",
        api_server="https://127.0.0.1:1",
        kubeconfig_path="/nonexistent/kubeconfig",
        kube_context="gone",
    )


def test_healthz_answers_without_authentication(client):
    response = client.get("/healthz")

    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_readyz_checks_database_channel_layer_and_broker(client, settings):
    response = client.get("/readyz", **PROBE)
    body = response.json()

    assert response.status_code == 200, body
    assert {"database", "channel_layer", "broker"} <= set(body["checks"])
    assert body["failed"] == []
    assert body["checks"]["database"]["detail"] == "postgresql"
    assert body["checks"]["channel_layer"]["detail"] == "RedisChannelLayer"
    assert body["checks"]["broker"]["detail"] == "reachable"


def test_readyz_names_an_unreachable_cluster_to_the_probe_token_and_admins(client, admin_user):
    unreachable_cluster()

    response = client.get("/readyz", **PROBE)
    body = response.json()
    client.force_login(admin_user)
    as_admin = client.get("/readyz").json()

    assert response.status_code == 503
    assert body["failed"] == as_admin["failed"] == ["cluster:gone"]
    assert "ConfigException" in body["checks"]["cluster:gone"]["detail"]
    from clusters.models import Cluster

    assert Cluster.objects.get(name="gone").last_probe_at is None  # a GET checks; only probes record


@pytest.mark.parametrize(
    "headers", [{}, {"HTTP_AUTHORIZATION": "Bearer wrong"}, {"HTTP_AUTHORIZATION": "probe-secret"}]
)
def test_anonymous_callers_get_the_status_only(client, user, headers):
    unreachable_cluster()

    anonymous = client.get("/readyz", **headers)
    client.force_login(user)
    member = client.get("/readyz", **headers)

    assert anonymous.status_code == member.status_code == 503
    assert anonymous.json() == member.json() == {"status": "unavailable"}
    assert b"gone" not in anonymous.content and b"Exception" not in anonymous.content


def test_no_probe_token_configured_means_no_token_sees_details(client, settings):
    settings.READYZ_PROBE_TOKEN = ""

    assert client.get("/readyz", HTTP_AUTHORIZATION="Bearer ").json() == {"status": "ok"}


def test_a_storm_of_readiness_requests_runs_the_checks_once(client, settings, monkeypatch):
    import console.health as health

    settings.READYZ_CACHE_SECONDS = 60
    runs: list[int] = []
    real = health.run_checks
    monkeypatch.setattr(health, "run_checks", lambda: runs.append(1) or real())
    answers: list[int] = []

    def ask() -> None:
        from django.db import connection
        from django.test import Client

        answers.append(Client().get("/readyz").status_code)
        connection.close()

    threads = [threading.Thread(target=ask) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert answers == [200] * 20 and len(runs) == 1
    settings.READYZ_CACHE_SECONDS = 0
    client.get("/readyz")
    assert len(runs) == 2
