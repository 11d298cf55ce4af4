"""The registry against the real local control plane: import, probe, pages read the watch cache."""

from pathlib import Path

import pytest
from django.core.management import call_command

from clusters import runtime
from clusters.health import probe_cluster
from clusters.models import Cluster

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def registered(local_control_plane):
    zones = [f"--zone={c.name}={c.zone}" for c in local_control_plane.clusters]
    call_command("import_clusters", "--kubeconfig", str(local_control_plane.kubeconfig_path), *zones)
    yield {c.name: c for c in Cluster.objects.all()}
    runtime.shutdown()


def test_import_registers_host_and_members_from_kubeconfig_contexts(registered, local_control_plane):
    assert registered["host"].role == "host"
    assert {n for n, c in registered.items() if c.role == "member"} == {"member-a", "member-b"}
    assert registered["member-b"].zone == "local-1b"

    call_command("import_clusters", "--kubeconfig", str(local_control_plane.kubeconfig_path))  # idempotent
    assert Cluster.objects.count() == 3


def test_probe_records_version_and_health(registered):
    version = probe_cluster(registered["member-a"])

    cluster = Cluster.objects.get(name="member-a")
    assert version.startswith("v1.34") and cluster.healthy and cluster.version == version


def test_cluster_pages_show_live_nodes_from_the_cache(registered, admin_client_):
    caches = runtime.member_caches()
    assert all(cache.wait_synced(30) for cache in caches.values())

    listing = admin_client_.get("/clusters/")
    detail = admin_client_.get("/clusters/member-a/")

    assert listing.status_code == 200 and b"20/20" in listing.content
    assert detail.status_code == 200
    assert detail.content.count(b"kwok-member-a-") >= 20
    assert b"g5.48xlarge" in detail.content and b"local-1a" in detail.content


def test_an_unreachable_cluster_is_reported_not_crashed_on(registered, admin_client_, tmp_path):
    dead = tmp_path / "kubeconfig"
    source = Path(registered["member-a"].kubeconfig_path).read_text()
    dead.write_text(source.replace(registered["member-a"].api_server, "https://127.0.0.1:1"))
    Cluster.objects.create(
        name="member-dead",
        region="local-1",
        zone="local-1c",
        role="member",
        api_server="https://127.0.0.1:1",
        kubeconfig_path=str(dead),
        kube_context="member-a",
    )

    with pytest.raises(ConnectionError):
        probe_cluster(Cluster.objects.get(name="member-dead"))
    listing = admin_client_.get("/clusters/")
    ready = admin_client_.get("/readyz").json()

    assert listing.status_code == 200 and b"member-dead" in listing.content and b"Unreachable" in listing.content
    assert ready["failed"] == [] and ready["degraded"] == ["cluster:member-dead"], ready["checks"]
    assert ready["checks"]["cluster:member-a"]["ok"]
