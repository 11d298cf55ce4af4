"""Cordon, drain and uncordon a member: audited through the service, in the member's MemberCluster, refused to
anyone but a platform admin (403) through the page and the API (the CLI: tests/sdk/test_cli_clusters.py), and bad
input names its field."""

from __future__ import annotations

import pytest

from base.errors import Invalid
from base.models import AuditEvent
from clusters import maintenance
from clusters.member_objects import manifest_for
from clusters.models import Cluster
from tests.support.factories import make_cluster

pytestmark = pytest.mark.django_db


def test_cordon_drain_and_uncordon_are_audited_and_reach_the_member_cluster_object(admin_user):
    cluster = make_cluster()

    maintenance.cordon_cluster(cluster.pk, actor=admin_user)
    spec = manifest_for(Cluster.objects.get(pk=cluster.pk))["spec"]
    assert spec["cordoned"] is True and "drain" not in spec

    maintenance.drain_cluster(cluster.pk, jobs_deadline_seconds=30, actor=admin_user)
    drained = Cluster.objects.get(pk=cluster.pk)
    spec = manifest_for(drained)["spec"]
    assert spec["cordoned"] is True and spec["drain"]["requestedAt"] < spec["drain"]["jobsDeadline"]
    assert (drained.drain_jobs_deadline - drained.drain_requested_at).total_seconds() == pytest.approx(30, abs=1)

    maintenance.uncordon_cluster(cluster.pk, actor=admin_user)
    spec = manifest_for(Cluster.objects.get(pk=cluster.pk))["spec"]
    assert spec["cordoned"] is False and "drain" not in spec

    events = list(AuditEvent.objects.filter(cluster=cluster.name).order_by("pk"))
    assert [e.action for e in events] == ["cluster.cordon", "cluster.drain", "cluster.uncordon"]
    assert events[1].before["cordoned"] is True and events[1].after["drain_requested_at"]
    assert all(e.actor == admin_user for e in events)


@pytest.mark.parametrize("seconds", [-1, 7 * 86400 + 1, "soon", True, 1.5])
def test_a_bad_jobs_deadline_names_its_field_and_changes_nothing(admin_user, seconds):
    cluster = make_cluster()
    with pytest.raises(Invalid) as refused:
        maintenance.drain_cluster(cluster.pk, jobs_deadline_seconds=seconds, actor=admin_user)
    assert [f.path for f in refused.value.fields] == ["jobs_deadline_seconds"]
    assert Cluster.objects.get(pk=cluster.pk).drain_requested_at is None
    assert not AuditEvent.objects.exists()


def test_the_host_cluster_cannot_be_cordoned(admin_user):
    host = make_cluster("host", role="host")
    with pytest.raises(Invalid, match="only a member"):
        maintenance.cordon_cluster(host.pk, actor=admin_user)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "cordon/", None),
        ("post", "drain/", {"jobs_deadline_seconds": 10}),
        ("post", "uncordon/", None),
        ("get", "maintenance/", None),
        ("post", "nodes/cordon/", {"node": "n1"}),
    ],
)
def test_the_api_refuses_everyone_but_platform_admins(api_client, user, method, path, body):
    cluster = make_cluster()
    api_client.force_authenticate(user)
    answer = getattr(api_client, method)(f"/api/v1/clusters/{cluster.name}/{path}", body, format="json")
    assert answer.status_code == 403
    assert not Cluster.objects.get(pk=cluster.pk).cordoned and not AuditEvent.objects.exists()


def test_an_admin_drains_through_the_api_and_reads_the_progress(api_client, admin_user):
    cluster = make_cluster()
    api_client.force_authenticate(admin_user)
    bad = api_client.post(f"/api/v1/clusters/{cluster.name}/drain/", {"jobs_deadline_seconds": -5}, format="json")
    assert bad.status_code == 400 and bad.json()["error"]["fields"][0]["path"] == "jobs_deadline_seconds"

    answer = api_client.post(f"/api/v1/clusters/{cluster.name}/drain/", {"jobs_deadline_seconds": 60}, format="json")
    assert answer.status_code == 200 and answer.json()["cordoned"] and answer.json()["drain_requested_at"]
    progress = api_client.get(f"/api/v1/clusters/{cluster.name}/maintenance/").json()
    assert progress == {"cordoned": True, "draining": True, "placed": [], "moving": [], "finished": [], "done": True}
    assert api_client.post(f"/api/v1/clusters/{cluster.name}/uncordon/").json()["cordoned"] is False


def test_the_cluster_page_offers_the_buttons_to_admins_only(client, admin_user, user):
    cluster = make_cluster()
    client.force_login(user)
    assert client.post(f"/clusters/{cluster.name}/maintenance/", {"action": "cordon"}).status_code == 403
    client.force_login(admin_user)
    answer = client.post(
        f"/clusters/{cluster.name}/maintenance/",
        {"action": "drain", "jobs_deadline_seconds": "120"},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 200
    body = answer.content.decode()
    assert "Draining" in body and "Uncordon" in body and 'hx-trigger="every 2s"' not in body  # done: nothing placed
    refused = client.post(
        f"/clusters/{cluster.name}/maintenance/",
        {"action": "drain", "jobs_deadline_seconds": "-1"},
        HTTP_HX_REQUEST="true",
    )
    assert refused.status_code == 400 and "whole number of seconds" in refused.content.decode()
    assert AuditEvent.objects.filter(action="cluster.drain").count() == 1


@pytest.mark.parametrize(
    ("meta", "kept"),
    [
        ({"ownerReferences": [{"kind": "ReplicaSet", "name": "web-1", "controller": True}]}, None),
        ({"ownerReferences": [{"kind": "DaemonSet", "name": "logs", "controller": True}]}, "run by DaemonSet logs"),
        ({"ownerReferences": [{"kind": "DaemonSet", "name": "logs"}]}, None),  # not its controller
        ({"annotations": {"kubernetes.io/config.mirror": "abc"}}, "a mirror pod"),
        ({"deletionTimestamp": "2026-11-28T00:00:00Z"}, "already terminating"),
        ({}, None),
    ],
)
def test_a_node_drain_leaves_daemonset_and_mirror_pods_as_kubectl_does(meta, kept):
    why = maintenance.why_drain_keeps({"metadata": {"name": "p", **meta}})
    assert (why is None) if kept is None else why.startswith(kept)


def _placed(name: str, on: str, phase: str = "Running", **record: object) -> dict:
    return {
        "metadata": {"namespace": "team-a", "name": name},
        "status": {"phase": phase, "placement": {"clusters": [{"cluster": on}], **record}},
    }


def test_a_job_that_succeeded_on_the_member_does_not_hold_its_drain_open():
    objects = [
        ("PinterestJobSet", _placed("done", "member-b", "Succeeded")),
        ("PinterestJobSet", _placed("running", "member-b")),
        ("PinApp", _placed("moved", "member-a", failover=[{"from": "member-b", "to": "member-a"}])),
        ("PinPod", _placed("elsewhere", "member-a", "Succeeded")),
    ]
    progress = maintenance.progress_of("member-b", True, True, objects)
    assert progress.finished == ["PinterestJobSet/team-a/done"]
    assert progress.placed == ["PinterestJobSet/team-a/running"] and progress.moving == ["PinApp/team-a/moved"]
    assert not progress.done
    left = maintenance.progress_of("member-b", True, True, objects[:1])
    assert left.done and left.finished == ["PinterestJobSet/team-a/done"]
    assert maintenance.progress_of("member-a", True, True, [("PinPod", _placed("p", "member-a", "Succeeded"))]).placed
