"""Provisioning against the real local clusters (host + two members), tasks run in-process: after
onboarding every member has the namespace, RoleBindings, tier quotas and LimitRange and the host the
namespace and ProjectQuota; changes reach every cluster; a new cluster gets every project; drift is
repaired; archiving removes everything; a dead cluster is a recorded failure, not a traceback."""

import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone
from kubernetes import client

from base.errors import Unavailable
from clusters.models import Cluster
from devtools.operator_process import install_crds
from devtools.waiting import wait_for
from projects.grants import QuotaInput
from projects.lifecycle import archive_project
from projects.members import MemberInput, remove_member, set_member
from projects.models import ClusterProvisioning
from projects.provisioning import provision_project
from projects.quota import change_quota
from projects.tasks import provision_on_cluster, reconcile_all, retry_on_cluster
from tests.support.provisioning import (
    add_pools,
    core,
    managed,
    member_behind_forwarder,
    namespace_or_none,
    onboard,
    project_quota,
    states,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks"),
]
SMALL = {"reserved": ("1", "1Gi", "0", "5")}
EVERYTHING = {
    "RoleBinding": ["pincompute-project-developer", "pincompute-project-owner", "pincompute-project-viewer"],
    "ResourceQuota": ["pincompute-ondemand", "pincompute-preemptible", "pincompute-reserved"],
    "LimitRange": ["pincompute-defaults"],
}


def _name() -> str:
    return f"prov-{uuid.uuid4().hex[:6]}"


def _members(federation):
    return [c for c in federation if c.role == "member"]


def _host(federation):
    return next(c for c in federation if c.role == "host")


def test_after_onboarding_every_member_has_namespace_bindings_tier_quotas_and_limits(
    federation, pools, cluster_api_clients, admin_user, user, other_user
):
    group = Group.objects.create(name="ads-oncall")
    project = onboard(
        _name(),
        admin_user,
        members=[
            ("user", user.username, "owner"),
            ("user", other_user.username, "viewer"),
            ("group", group.name, "developer"),
        ],
        grants={"reserved": ("4", "16Gi", "1", "40"), "ondemand": ("8", "32Gi", "0", "0")},
    )

    assert states(project) == {c.name: ("ready", project.generation) for c in federation}
    for member in _members(federation):
        api = cluster_api_clients[member.name]
        labels = core(api).read_namespace(project.namespace).metadata.labels
        bindings = {
            rb.metadata.name: rb
            for rb in client.RbacAuthorizationV1Api(api).list_namespaced_role_binding(project.namespace).items
        }
        hard = {q.metadata.name: q.spec.hard for q in core(api).list_namespaced_resource_quota(project.namespace).items}
        assert managed(api, project.namespace) == EVERYTHING
        assert labels["pincompute.io/project"] == project.name
        assert labels["pincompute.io/team"] == "Ads-Ranking"
        assert labels["pincompute.io/cost-center"] == "CC-1042"
        assert labels["pod-security.kubernetes.io/enforce"] == "baseline"
        assert labels["pod-security.kubernetes.io/warn"] == "baseline"
        assert [(s.kind, s.name) for s in bindings["pincompute-project-owner"].subjects] == [("User", user.username)]
        assert [(s.kind, s.name) for s in bindings["pincompute-project-developer"].subjects] == [("Group", group.name)]
        assert [(s.kind, s.name) for s in bindings["pincompute-project-viewer"].subjects] == [
            ("User", other_user.username)
        ]
        assert bindings["pincompute-project-viewer"].role_ref.name == "pincompute-project-viewer"
        assert hard["pincompute-reserved"] == {
            "requests.cpu": "4",
            "requests.memory": "16Gi",
            "requests.nvidia.com/gpu": "1",
            "pods": "40",
        }
        assert hard["pincompute-ondemand"] == {
            "requests.cpu": "8",
            "requests.memory": "32Gi",
            "requests.nvidia.com/gpu": "0",
        }
        assert hard["pincompute-preemptible"]["requests.cpu"] == "0"


def test_the_host_gets_the_namespace_and_the_project_quota_federation_admits_against(
    federation, pools, cluster_api_clients, admin_user
):
    project = onboard(_name(), admin_user, grants={"reserved": ("4", "16Gi", "1", "40")})

    api = cluster_api_clients[_host(federation).name]
    quota = project_quota(api, project)
    assert namespace_or_none(api, project.namespace).metadata.labels["pincompute.io/project"] == project.name
    assert quota["spec"]["tiers"]["Reserved"] == {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1", "pods": 40}
    assert quota["spec"]["tiers"]["Preemptible"]["cpu"] == "0"
    assert managed(api, project.namespace) == {"RoleBinding": [], "ResourceQuota": [], "LimitRange": []}


def test_a_quota_change_and_a_member_change_show_up_on_every_cluster(
    federation, pools, cluster_api_clients, admin_user, user, other_user
):
    group = Group.objects.create(name="ads-devs")
    project = onboard(
        _name(),
        admin_user,
        members=[("user", user.username, "owner"), ("group", group.name, "developer")],
        grants={"ondemand": ("2", "4Gi", "0", "10")},
    )

    change_quota(project, "ondemand", QuotaInput(cpu="6", memory="4Gi", gpu="2", pods="12"), actor=admin_user)
    set_member(project, MemberInput("user", other_user.username, "owner"), actor=admin_user)
    set_member(project, MemberInput("user", user.username, "viewer"), actor=admin_user)
    remove_member(project, "group", group.name, actor=admin_user)
    project.refresh_from_db()

    assert states(project) == {c.name: ("ready", project.generation) for c in federation}
    for member in _members(federation):
        api = cluster_api_clients[member.name]
        hard = core(api).read_namespaced_resource_quota("pincompute-ondemand", project.namespace).spec.hard
        rbac = client.RbacAuthorizationV1Api(api)
        subjects = {
            rb.metadata.name: [s.name for s in rb.subjects or []]
            for rb in rbac.list_namespaced_role_binding(project.namespace).items
        }
        assert (hard["requests.cpu"], hard["requests.nvidia.com/gpu"], hard["pods"]) == ("6", "2", "12")
        assert subjects == {
            "pincompute-project-owner": [other_user.username],
            "pincompute-project-developer": [],
            "pincompute-project-viewer": [user.username],
        }
    host_quota = project_quota(cluster_api_clients[_host(federation).name], project)
    assert host_quota["spec"]["tiers"]["OnDemand"] == {"cpu": "6", "memory": "4Gi", "nvidia.com/gpu": "2", "pods": 12}


def test_the_reconcile_catches_a_cluster_whose_registration_task_was_lost(register, cluster_api_clients, admin_user):
    register("host"), add_pools(register("member-a"))
    projects = [onboard(_name(), admin_user, grants=SMALL) for _ in range(2)]
    assert all(namespace_or_none(cluster_api_clients["member-b"], p.namespace) is None for p in projects)
    member_b = register("member-b")
    ClusterProvisioning.objects.filter(cluster=member_b).delete()  # as if the queued task never ran

    counts = reconcile_all()

    assert counts["queued"] == 2
    for project in projects:
        assert states(project)["member-b"] == ("ready", project.generation)
        assert managed(cluster_api_clients["member-b"], project.namespace) == EVERYTHING
    assert ClusterProvisioning.objects.filter(cluster=member_b).count() == 2
    assert reconcile_all()["queued"] == 0  # everything matches now


def test_registering_a_cluster_provisions_every_project_without_waiting_for_the_reconcile(
    register, cluster_api_clients, admin_user, eager_tasks
):
    register("host"), add_pools(register("member-a"))
    projects = [onboard(_name(), admin_user, grants=SMALL) for _ in range(2)]

    register("member-b")  # the registration's commit queues every active project there

    for project in projects:
        assert states(project)["member-b"] == ("ready", project.generation)
        assert managed(cluster_api_clients["member-b"], project.namespace) == EVERYTHING
    assert reconcile_all()["queued"] == 0


def test_the_periodic_reconcile_repairs_drift(federation, pools, cluster_api_clients, admin_user):
    project = onboard(_name(), admin_user, grants=SMALL)
    api = cluster_api_clients["member-a"]
    core(api).delete_namespaced_resource_quota("pincompute-reserved", project.namespace)
    core(api).patch_namespace(project.namespace, {"metadata": {"labels": {"pod-security.kubernetes.io/enforce": None}}})
    assert reconcile_all()["queued"] == 0  # fresh records: nothing due yet

    ClusterProvisioning.objects.filter(project=project).update(last_success_at=timezone.now() - timedelta(hours=1))
    counts = reconcile_all()

    assert counts["queued"] == len(federation)
    assert managed(api, project.namespace) == EVERYTHING
    labels = core(api).read_namespace(project.namespace).metadata.labels
    assert labels["pod-security.kubernetes.io/enforce"] == "baseline"


def test_a_second_run_writes_nothing_new(federation, pools, admin_user):
    project = onboard(_name(), admin_user, grants=SMALL)
    member = _members(federation)[0]

    first = provision_project(project, member)
    second = provision_project(project, member)

    # The quota controller writes ResourceQuota status, so only the objects no controller touches show
    # an unchanged resourceVersion.
    def versions(objs):
        return [(o["kind"], o["metadata"]["resourceVersion"]) for o in objs if o["kind"] != "ResourceQuota"]

    assert versions(second) == versions(first)
    assert ClusterProvisioning.objects.filter(project=project).count() == len(federation)


def test_archiving_removes_what_provisioning_created_on_every_cluster(
    federation, pools, cluster_api_clients, admin_user, monkeypatch
):
    project = onboard(_name(), admin_user, grants=SMALL)
    monkeypatch.setattr("clusters.runtime.member_caches", dict)  # no pods and no workloads on the host:
    monkeypatch.setattr("clusters.runtime.host_cache", lambda: None)  # archiving is allowed

    archive_project(project, actor=admin_user)

    wait_for(
        lambda: reconcile_all() and set(s for s, _ in states(project).values()) == {"removed"},
        timeout=90,
        interval=1,
        what="every cluster removed the project",
    )

    for cluster in federation:
        assert namespace_or_none(cluster_api_clients[cluster.name], project.namespace) is None
    assert reconcile_all()["queued"] == 0


def test_an_unreachable_cluster_is_a_recorded_failure_with_backoff_and_a_retry(federation, pools, tmp_path, admin_user):
    member = _members(federation)[0]
    dead = tmp_path / "kubeconfig"
    dead.write_text(Path(member.kubeconfig_path).read_text().replace(member.api_server, "https://127.0.0.1:1"))
    gone = Cluster.objects.create(
        name="member-gone",
        region="local-1",
        zone="local-1c",
        role="member",
        api_server="https://127.0.0.1:1",
        kubeconfig_path=str(dead),
        kube_context=member.kube_context,
    )
    project = onboard(_name(), admin_user, grants=SMALL)

    record = ClusterProvisioning.objects.get(project=project, cluster=gone)
    assert record.state == "failed" and "member-gone" in record.last_error and record.attempts == 1
    assert states(project)["member-a"] == ("ready", project.generation)  # one cluster does not stop the others
    assert reconcile_all()["queued"] == 0  # backing off
    with pytest.raises(Unavailable, match="member-gone"):
        provision_project(project, gone)

    retry_on_cluster(project.pk, gone.pk, actor=admin_user)

    record.refresh_from_db()
    assert record.state == "failed" and record.attempts == 2
    assert provision_on_cluster(project.pk, 10**9) == "gone"


def test_install_crds_puts_the_project_quota_crd_on_the_host_and_cluster_roles_on_members(
    local_control_plane, cluster_api_clients
):
    install_crds(local_control_plane.kubeconfig_path, ["member-a"], host="host")

    crds = client.ApiextensionsV1Api(cluster_api_clients["host"])
    roles = client.RbacAuthorizationV1Api(cluster_api_clients["member-a"])
    assert crds.read_custom_resource_definition("projectquotas.pincompute.io").spec.scope == "Namespaced"
    assert {r.metadata.name for r in roles.list_cluster_role(label_selector="app.kubernetes.io/managed-by").items} >= {
        "pincompute-project-owner",
        "pincompute-project-developer",
        "pincompute-project-viewer",
    }


def test_a_stopped_apiserver_fails_its_cluster_with_the_reason_and_a_retry_after_restart_converges(
    federation, pools, tmp_path, admin_user, client
):
    flaky, forwarder = member_behind_forwarder(federation, tmp_path, "member-flaky")  # not started: refused
    try:
        project = onboard(_name(), admin_user, grants=SMALL)  # the apiserver is stopped

        record = ClusterProvisioning.objects.get(project=project, cluster=flaky)
        assert record.state == "failed" and "member-flaky" in record.last_error
        assert "refused" in record.last_error.lower() or "connect" in record.last_error.lower()
        for other in federation:  # one stopped cluster does not stop the others
            assert states(project)[other.name] == ("ready", project.generation)
        client.force_login(admin_user)
        page = client.get(f"/projects/{project.name}/provisioning/").content.decode()
        assert 'data-cluster="member-flaky" data-state="failed"' in page and record.last_error[:40] in page
        assert f"/projects/{project.name}/provisioning/member-flaky/retry/" in page

        forwarder.start()  # the apiserver is back
        response = client.post(f"/projects/{project.name}/provisioning/member-flaky/retry/")

        assert response.status_code == 302
        record.refresh_from_db()
        assert (record.state, record.observed_generation, record.last_error) == ("ready", project.generation, "")
        page = client.get(f"/projects/{project.name}/provisioning/").content.decode()
        assert 'data-cluster="member-flaky" data-state="ready"' in page
    finally:
        forwarder.stop()
