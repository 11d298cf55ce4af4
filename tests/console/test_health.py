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


def test_readyz_names_an_unreachable_cluster_as_degraded_to_the_probe_token_and_admins(client, admin_user):
    unreachable_cluster()

    response = client.get("/readyz", **PROBE)
    body = response.json()
    client.force_login(admin_user)
    as_admin = client.get("/readyz").json()

    assert response.status_code == 200  # the portal serves every page without it (watch caches, clean 503 writes)
    assert body["status"] == "degraded" and body["failed"] == as_admin["failed"] == []
    assert body["degraded"] == as_admin["degraded"] == ["cluster:gone"]
    assert "ConfigException" in body["checks"]["cluster:gone"]["detail"]
    assert body["checks"]["cluster:gone"]["critical"] is False and body["checks"]["database"]["critical"] is True
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

    assert anonymous.status_code == member.status_code == 200
    assert anonymous.json() == member.json() == {"status": "degraded"}
    assert b"gone" not in anonymous.content and b"Exception" not in anonymous.content


@pytest.fixture
def stopped_apiservers(tmp_path):
    """Member clusters whose apiserver is stopped (SIGSTOP): its port takes connections (the kernel's backlog) and
    never answers, so a probe waits out its whole timeout. Registered with a kubeconfig of their own."""
    import socket
    import uuid

    from clusters import runtime
    from tests.support.factories import make_cluster

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)  # never accepted: connections complete in the backlog and hear nothing
    server = f"https://127.0.0.1:{listener.getsockname()[1]}"
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters: [{{name: stopped, cluster: {{server: '{server}', insecure-skip-tls-verify: true}}}}]\n"
        "users: [{name: u, user: {token: t}}]\n"
        "contexts: [{name: stopped, context: {cluster: stopped, user: u}}]\ncurrent-context: stopped\n"
    )
    suffix = uuid.uuid4().hex[:6]  # fresh breakers: an earlier test's open circuit would answer at once
    names = [f"stopped-{i}-{suffix}" for i in range(5)]
    for name in names:
        make_cluster(name, api_server=server, kubeconfig_path=str(kubeconfig), kube_context="stopped")
    yield names
    runtime.shutdown()
    listener.close()


def test_stopped_members_leave_the_portal_ready_and_are_named_as_degraded_within_the_probe_timeout(
    client, stopped_apiservers
):
    import time

    start = time.monotonic()
    response = client.get("/readyz", **PROBE)
    took = time.monotonic() - start
    body = response.json()

    assert response.status_code == 200, body
    assert body["status"] == "degraded" and body["failed"] == []
    assert sorted(body["degraded"]) == sorted(f"cluster:{n}" for n in stopped_apiservers)
    assert body["checks"]["database"]["ok"]
    # the chart's readinessProbe.timeoutSeconds is 5: five hung apiservers are checked at once, not one by one
    assert took < 4.0, took


def test_redis_down_is_degraded_not_unready(client, monkeypatch):
    from redis.exceptions import ConnectionError as RedisConnectionError

    import console.health as health

    def down() -> str:
        raise RedisConnectionError("Error 111 connecting to redis:6379. Connection refused.")

    monkeypatch.setattr(health, "check_channel_layer", down)
    monkeypatch.setattr(health, "check_broker", down)

    body = client.get("/readyz", **PROBE)

    assert body.status_code == 200
    assert sorted(body.json()["degraded"]) == ["broker", "channel_layer"] and body.json()["failed"] == []


def test_the_database_down_makes_the_portal_unready(client, monkeypatch):
    from django.db import OperationalError

    import console.health as health

    def down() -> str:
        raise OperationalError("connection failed: Connection refused")

    monkeypatch.setattr(health, "check_database", down)

    anonymous = client.get("/readyz")
    body = client.get("/readyz", **PROBE).json()

    assert anonymous.status_code == 503 and anonymous.json() == {"status": "unavailable"}
    assert body["failed"] == ["database"] and body["status"] == "unavailable"


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
