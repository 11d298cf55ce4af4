"""Admin cluster-attribute editing: validation that explains itself, admin-only, audited before/after."""

import pytest

from base.errors import Invalid
from base.models import AuditEvent
from clusters import attributes, services
from clusters.models import Cluster, ClusterPool
from tests.support.factories import make_cluster, make_pool, make_quota

pytestmark = pytest.mark.django_db


def by_field(error: Invalid) -> dict[str, str]:
    return {f.path: f.message for f in error.fields}


def test_reserved_pool_cannot_shrink_below_granted_quota_and_says_by_how_much(admin_user):
    cluster = make_cluster()
    make_pool(cluster, "reserved", 100, 400)
    make_quota("reserved", 40, project="ads", mem_gib=100)
    make_quota("reserved", 30, project="ml", mem_gib=100)

    with pytest.raises(Invalid) as refused:
        services.update_pool(
            cluster.pk, "reserved", services.PoolInput(cpu="64", memory="400Gi", gpu="0"), actor=admin_user
        )

    assert "cpu" in by_field(refused.value)
    assert "6 below the 70 already granted" in by_field(refused.value)["cpu"]
    assert ClusterPool.objects.get(cluster=cluster, kind="reserved").cpu_milli == 100_000
    assert not AuditEvent.objects.filter(action="cluster.pool.update").exists()


def test_pool_edit_is_audited_with_before_and_after(admin_user):
    cluster = make_cluster()
    make_pool(cluster, "ondemand", 10, 40)

    services.update_pool(cluster.pk, "ondemand", services.PoolInput(cpu="12", memory="40Gi", gpu="2"), actor=admin_user)

    event = AuditEvent.objects.get(action="cluster.pool.update")
    assert event.before == {"cpu": "10", "memory": "40Gi", "gpu": "0"}
    assert event.after == {"cpu": "12", "memory": "40Gi", "gpu": "2"}
    assert event.cluster == cluster.name and event.actor == admin_user


def test_bad_quantities_name_every_field():
    cluster = make_cluster()

    with pytest.raises(Invalid) as refused:
        services.update_pool(cluster.pk, "burst", services.PoolInput(cpu="lots", memory="-3Gi", gpu="1.5"), actor=None)

    assert set(by_field(refused.value)) == {"cpu", "memory", "gpu"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("zone", "is not key=value"),
        ("Bad Key=x", "not a valid label key"),
        ("team=has space", "not a valid label value"),
    ],
)
def test_label_errors_explain_themselves(text, message):
    with pytest.raises(Invalid) as refused:
        attributes.parse_labels(text)
    assert message in by_field(refused.value)["labels"]


def test_taints_need_a_known_effect():
    assert attributes.parse_taints("gpu=true:NoSchedule") == [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]
    with pytest.raises(Invalid) as refused:
        attributes.parse_taints("gpu=true:Sometimes")
    assert "NoSchedule" in by_field(refused.value)["taints"]


def test_attribute_edit_page_is_refused_to_non_admins(user_client):
    cluster = make_cluster()

    for response in (
        user_client.get(f"/clusters/{cluster.name}/"),
        user_client.get(f"/clusters/{cluster.name}/attributes/?edit=1"),
        user_client.post(f"/clusters/{cluster.name}/attributes/", {"region": "x", "zone": "y"}),
        user_client.post(f"/clusters/{cluster.name}/pools/reserved/", {"cpu": "1", "memory": "1Gi", "gpu": "0"}),
        user_client.get("/clusters/"),
    ):
        assert response.status_code == 403
    assert Cluster.objects.get(pk=cluster.pk).region == "local-1"
    assert not ClusterPool.objects.exists()


def test_htmx_attribute_edit_saves_and_returns_the_partial(admin_client_, admin_user):
    cluster = make_cluster()
    form = {
        "region": "local-1",
        "zone": "local-1b",
        "hardware_families": "gpu, general",
        "labels": "tier=gold\nteam=infra",
        "taints": "dedicated=ml:NoSchedule",
        "schedulable": "",
    }

    response = admin_client_.post(f"/clusters/{cluster.name}/attributes/", form, HTTP_HX_REQUEST="true")

    assert response.status_code == 200 and b"<html" not in response.content
    cluster.refresh_from_db()
    assert cluster.zone == "local-1b" and cluster.hardware_families == ["general", "gpu"]
    assert cluster.labels == {"tier": "gold", "team": "infra"} and not cluster.schedulable
    event = AuditEvent.objects.get(action="cluster.update")
    assert event.before["zone"] == "local-1a" and event.after["zone"] == "local-1b"
    assert "schedulable" in event.after and "region" not in event.after


def test_htmx_pool_edit_shows_the_shrink_error_inline_with_400(admin_client_):
    cluster = make_cluster()
    make_pool(cluster, "reserved", 50)
    make_quota("reserved", 48)

    response = admin_client_.post(
        f"/clusters/{cluster.name}/pools/reserved/", {"cpu": "40", "memory": "0", "gpu": "0"}, HTTP_HX_REQUEST="true"
    )

    assert response.status_code == 400
    assert b"cannot shrink below the quota already granted" in response.content
    assert b"8 below the 48 already granted" in response.content
    assert ClusterPool.objects.get(cluster=cluster, kind="reserved").cpu_milli == 50_000


def test_api_patch_is_admin_only_and_validates(api_client, user, admin_user):
    cluster = make_cluster()
    api_client.force_authenticate(user)
    assert api_client.patch(f"/api/v1/clusters/{cluster.name}/", {"zone": "z"}, format="json").status_code == 403

    api_client.force_authenticate(admin_user)
    bad = api_client.patch(f"/api/v1/clusters/{cluster.name}/", {"labels": {"Bad Key": "x"}}, format="json")
    assert bad.status_code == 400
    assert bad.json()["error"]["fields"][0]["path"] == "labels"
    ok = api_client.patch(
        f"/api/v1/clusters/{cluster.name}/", {"schedulable": False, "labels": {"a": "b"}}, format="json"
    )
    assert ok.status_code == 200 and ok.json()["schedulable"] is False


def test_api_pool_put_refuses_a_shrink_with_409_style_message(api_client, admin_user):
    cluster = make_cluster()
    make_pool(cluster, "reserved", 10)
    make_quota("reserved", 8)
    api_client.force_authenticate(admin_user)

    response = api_client.put(
        f"/api/v1/clusters/{cluster.name}/pools/reserved/", {"cpu": "4", "memory": "0", "gpu": "0"}, format="json"
    )

    assert response.status_code == 400
    assert "4 below the 8 already granted" in response.json()["error"]["fields"][0]["message"]


def test_cluster_api_never_shows_credentials(api_client, user):
    make_cluster(kubeconfig_path="/secret/path/kubeconfig")
    api_client.force_authenticate(user)

    body = api_client.get("/api/v1/clusters/").content

    assert b"/secret/path" not in body and b"kubeconfig" not in body


def test_cluster_internals_are_for_platform_admins_only(api_client, user, admin_user):
    cluster = make_cluster()
    Cluster.objects.filter(pk=cluster.pk).update(last_error="dial tcp 10.0.0.7:6443: i/o timeout", version="v1.34.10")
    internals = ("api_server", "last_error", "version")

    api_client.force_authenticate(user)
    listed = api_client.get("/api/v1/clusters/").json()["results"][0]
    one = api_client.get(f"/api/v1/clusters/{cluster.name}/").json()
    api_client.force_authenticate(admin_user)
    as_admin = api_client.get(f"/api/v1/clusters/{cluster.name}/").json()

    assert all(listed[f] is None and one[f] is None for f in internals)
    assert listed["zone"] == cluster.zone and "healthy" in listed  # placement and health stay visible
    assert as_admin["api_server"] == cluster.api_server and as_admin["last_error"].startswith("dial tcp")
    assert as_admin["version"] == "v1.34.10"
