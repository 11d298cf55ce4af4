import pytest

pytestmark = pytest.mark.django_db


def test_healthz_answers_without_authentication(client):
    response = client.get("/healthz")

    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_readyz_checks_database_channel_layer_and_broker(client, settings):
    response = client.get("/readyz")
    body = response.json()

    assert response.status_code == 200, body
    assert {"database", "channel_layer", "broker"} <= set(body["checks"])
    assert body["failed"] == []
    assert body["checks"]["database"]["detail"] == "postgresql"
    assert body["checks"]["channel_layer"]["detail"] == "RedisChannelLayer"
    assert body["checks"]["broker"]["detail"] == "reachable"


def test_readyz_names_an_unreachable_cluster(client):
    from clusters.models import Cluster

    Cluster.objects.create(
        name="gone",
        region="r",
        zone="z",
        role="member",
        api_server="https://127.0.0.1:1",
        kubeconfig_path="/nonexistent/kubeconfig",
        kube_context="gone",
    )
    response = client.get("/readyz")
    body = response.json()

    assert response.status_code == 503
    assert body["failed"] == ["cluster:gone"]
    assert not body["checks"]["cluster:gone"]["ok"]
    assert "ConfigException" in body["checks"]["cluster:gone"]["detail"]
    assert Cluster.objects.get(name="gone").last_probe_at is None  # a GET checks; only probes record
