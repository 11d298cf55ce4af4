"""The registry's members as MemberCluster objects on the real host apiserver: registration writes one, every
attribute or pool edit reaches it, and a stopped host leaves the edit saved and audited while the next
periodic pass converges."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from kubernetes import client

from base.models import AuditEvent
from clusters import runtime
from clusters.models import Cluster
from clusters.services import PoolInput, register_cluster, update_cluster_attributes, update_pool
from clusters.tasks import sync_member_clusters
from console.health import forget_cached_checks
from devtools.devstack import install_platform, register_one
from devtools.waiting import wait_for
from pincompute.kinds import MEMBER_CLUSTER
from tests.harness.forwarder import TcpForwarder
from tests.support.nodes import zone_relabelled

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks"),
]


@pytest.fixture
def eager_tasks() -> Iterator[None]:
    """Tasks run in-process as in the embedded default (the harness sets REDIS_URL, which queues them)."""
    from console.celery import app

    before = app.conf.task_always_eager
    app.conf.CELERY_TASK_ALWAYS_EAGER = True
    yield
    app.conf.CELERY_TASK_ALWAYS_EAGER = before


@pytest.fixture
def register(local_control_plane) -> Iterator[Any]:
    """``register(name)``: one local cluster in the registry (its sync queued on commit, run in-process), then
    the platform installed on it, as the dev command does."""

    def register_cluster(name: str) -> Cluster:
        cluster = register_one(local_control_plane, local_control_plane.cluster(name))
        install_platform(cluster)
        return cluster

    yield register_cluster
    runtime.shutdown()


def _objects(host_api: client.ApiClient) -> client.CustomObjectsApi:
    return client.CustomObjectsApi(host_api)


def member_cluster(host_api: client.ApiClient, name: str) -> dict[str, Any] | None:
    try:
        return _objects(host_api).get_cluster_custom_object(
            MEMBER_CLUSTER.group, MEMBER_CLUSTER.version, MEMBER_CLUSTER.plural, name
        )
    except client.ApiException as exc:
        if exc.status == 404:
            return None
        raise


@pytest.fixture
def host_api(cluster_api_clients) -> Iterator[client.ApiClient]:
    """The host's client; the MemberCluster objects other tests wrote there are put back afterwards."""
    api = cluster_api_clients["host"]
    objects = _objects(api)
    args = (MEMBER_CLUSTER.group, MEMBER_CLUSTER.version, MEMBER_CLUSTER.plural)
    try:
        before = {o["metadata"]["name"]: o for o in objects.list_cluster_custom_object(*args)["items"]}
    except client.ApiException:
        before = {}  # the CRD is not installed yet
    yield api
    for item in objects.list_cluster_custom_object(*args)["items"]:
        name = item["metadata"]["name"]
        if name not in before:
            objects.delete_cluster_custom_object(*args, name)
    for name, old in before.items():
        current = member_cluster(api, name)
        if current is None:
            body = {"apiVersion": old["apiVersion"], "kind": old["kind"], "metadata": {"name": name}}
            objects.create_cluster_custom_object(*args, {**body, "spec": old["spec"]})
        else:
            objects.replace_cluster_custom_object(*args, name, {**current, "spec": old["spec"]})


def test_registering_a_member_writes_its_member_cluster_on_the_host(register, host_api):
    register("host")
    member = register("member-a")

    obj = member_cluster(host_api, "member-a")

    assert obj is not None and obj["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "pincompute"
    assert obj["spec"]["zone"] == member.zone and obj["spec"]["region"] == member.region
    assert obj["spec"]["schedulable"] is True and obj["spec"]["pools"]["reserved"]["cpu"] == "0"
    assert member_cluster(host_api, "host") is None  # the host is no member


def test_every_attribute_and_pool_edit_reaches_the_member_cluster(register, host_api, admin_user, member_api_clients):
    register("host")
    member = register("member-a")

    with zone_relabelled(member_api_clients["member-a"], "member-a", "local-1z"):  # a zone its nodes are in
        update_cluster_attributes(
            member.pk,
            {
                "zone": "local-1z",
                "labels": {"pincompute.io/tier": "gold"},
                "taints": [{"key": "dedicated", "value": "ml", "effect": "NoSchedule"}],
                "schedulable": False,
                "hardware_families": ["p4d", "general"],
            },
            actor=admin_user,
        )
    update_pool(member.pk, "ondemand", PoolInput(cpu="64", memory="256Gi", gpu="8"), actor=admin_user)

    spec = member_cluster(host_api, "member-a")["spec"]
    assert spec["zone"] == "local-1z" and spec["labels"] == {"pincompute.io/tier": "gold"}
    assert spec["taints"] == [{"key": "dedicated", "value": "ml", "effect": "NoSchedule"}]
    assert spec["schedulable"] is False and spec["hardwareFamilies"] == ["general", "p4d"]
    assert spec["pools"]["ondemand"] == {"cpu": "64", "memory": "256Gi", "nvidia.com/gpu": "8"}
    assert sync_member_clusters() == {"host": "applied 0, deleted 0"}  # nothing left to write


def test_the_periodic_pass_repairs_a_member_cluster_changed_or_deleted_on_the_host(register, host_api):
    register("host")
    register("member-a")
    register("member-b")
    args = (MEMBER_CLUSTER.group, MEMBER_CLUSTER.version, MEMBER_CLUSTER.plural)
    _objects(host_api).delete_cluster_custom_object(*args, "member-a")
    drifted = copy.deepcopy(member_cluster(host_api, "member-b"))
    _objects(host_api).patch_cluster_custom_object(*args, "member-b", {"spec": {"zone": "elsewhere"}})

    assert sync_member_clusters() == {"host": "applied 2, deleted 0"}

    assert member_cluster(host_api, "member-a") is not None
    assert member_cluster(host_api, "member-b")["spec"] == drifted["spec"]


def test_a_stopped_host_leaves_the_edit_saved_says_so_and_the_next_pass_converges(
    register, host_api, local_control_plane, tmp_path, admin_user, admin_client_
):
    info = local_control_plane.cluster("host")
    target = urlsplit(info.server)
    forwarder = TcpForwarder((target.hostname, target.port))
    kubeconfig = tmp_path / "kubeconfig"
    source = Path(local_control_plane.kubeconfig_path).read_text()
    kubeconfig.write_text(source.replace(info.server, f"https://127.0.0.1:{forwarder.port}"))
    forwarder.start()
    try:
        host, _ = register_cluster(
            name="host",
            region=info.region,
            zone=info.zone,
            role="host",
            api_server=f"https://127.0.0.1:{forwarder.port}",
            kubeconfig_path=str(kubeconfig),
            kube_context=info.context,
        )
        install_platform(host)
        member = register("member-a")
        assert member_cluster(host_api, "member-a")["spec"]["zone"] == member.zone
        forwarder.stop()  # the host's apiserver, as the portal sees it, is down

        saved = update_cluster_attributes(member.pk, {"labels": {"pincompute.io/tier": "gold"}}, actor=admin_user)
        update_pool(member.pk, "reserved", PoolInput(cpu="8", memory="32Gi", gpu="0"), actor=admin_user)

        assert Cluster.objects.get(pk=member.pk).labels == saved.labels == {"pincompute.io/tier": "gold"}
        assert AuditEvent.objects.filter(action="cluster.update", target_name="member-a").exists()
        assert AuditEvent.objects.filter(action="cluster.pool.update", target_name="member-a/reserved").exists()
        assert member_cluster(host_api, "member-a")["spec"]["labels"] == {}  # not there yet
        assert sync_member_clusters()["host"].startswith("failed: ")
        failing = Cluster.objects.get(pk=member.pk)
        assert failing.host_sync_error.startswith("MemberCluster objects on host: ")  # its page and /readyz say so
        assert b"does not hold this member" in admin_client_.get("/clusters/member-a/").content
        forget_cached_checks()
        readyz = admin_client_.get("/readyz").json()
        assert "member_sync" in readyz["degraded"]
        assert readyz["checks"]["member_sync"]["detail"].startswith("RuntimeError: member-a: MemberCluster objects")

        forwarder.start()  # the host is back: the periodic pass (beat) converges once its breaker lets it

        wait_for(lambda: sync_member_clusters()["host"] == "applied 1, deleted 0", timeout=90, interval=1)
        spec = member_cluster(host_api, "member-a")["spec"]
        assert spec["labels"] == {"pincompute.io/tier": "gold"} and spec["pools"]["reserved"]["cpu"] == "8"
        assert Cluster.objects.get(pk=member.pk).host_sync_error == ""
        assert b"does not hold this member" not in admin_client_.get("/clusters/member-a/").content
    finally:
        forwarder.stop()
        runtime.shutdown()


def test_a_member_registered_again_as_the_host_loses_its_member_cluster(register, host_api, local_control_plane):
    register("host")
    register("member-a")
    info = local_control_plane.cluster("member-a")
    assert member_cluster(host_api, "member-a") is not None

    register_cluster(
        name="member-a",
        region=info.region,
        zone=info.zone,
        role="host",  # e.g. a mistaken import, corrected by re-importing
        api_server=info.server,
        kubeconfig_path=str(local_control_plane.kubeconfig_path),
        kube_context=info.context,
    )

    assert member_cluster(host_api, "member-a") is None


def test_a_label_added_then_removed_and_a_zone_change_reach_the_host(
    register, host_api, admin_user, member_api_clients
):
    register("host")
    member = register("member-a")
    update_cluster_attributes(
        member.pk,
        {
            "labels": {"pincompute.io/tier": "gold"},
            "taints": [{"key": "dedicated", "value": "ml", "effect": "NoSchedule"}],
            "hardware_families": ["p4d"],
        },
        actor=admin_user,
    )
    assert member_cluster(host_api, "member-a")["spec"]["labels"] == {"pincompute.io/tier": "gold"}

    update_cluster_attributes(member.pk, {"labels": {}, "taints": [], "hardware_families": []}, actor=admin_user)
    with zone_relabelled(member_api_clients["member-a"], "member-a", "local-1z"):
        update_cluster_attributes(member.pk, {"zone": "local-1z"}, actor=admin_user)

    spec = member_cluster(host_api, "member-a")["spec"]
    assert spec["labels"] == {} and spec["taints"] == [] and spec["hardwareFamilies"] == []
    assert spec["zone"] == "local-1z"
    assert sync_member_clusters() == {"host": "applied 0, deleted 0"}  # the pass agrees: nothing left to write
