"""projects.provisioning against a real member cluster: Namespace, tier ResourceQuotas, LimitRange;
idempotent, follows the grants, and a dead cluster is a ServiceError, not a traceback."""

import uuid
from pathlib import Path

import pytest
from kubernetes import client

from base.errors import Unavailable
from clusters import runtime
from clusters.models import Cluster
from devtools.devstack import register_one
from projects import services as project_services
from projects.models import Tier
from projects.provisioning import COST_CENTER_LABEL, label_value, provision_project

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]
GIB = 2**30


@pytest.fixture
def member(local_control_plane):
    info = next(c for c in local_control_plane.clusters if c.role == "member")
    yield register_one(local_control_plane, info)
    runtime.shutdown()


@pytest.fixture
def project(admin_user):
    return project_services.create_project(
        name=f"prov-{uuid.uuid4().hex[:6]}", team="Ads Ranking", cost_center="CC-1042", actor=admin_user
    )


def test_provisions_namespace_quotas_and_limits_and_is_idempotent(member, project, admin_user):
    project_services.grant_quota(
        project=project,
        cluster=member,
        tier=Tier.RESERVED,
        cpu_milli=4000,
        memory_bytes=16 * GIB,
        gpu=0,
        actor=admin_user,
    )
    first = provision_project(project, member)
    second = provision_project(project, member)

    core = client.CoreV1Api(runtime.api_for(member))
    labels = core.read_namespace(project.namespace).metadata.labels
    quotas = {q.metadata.name: q.spec.hard for q in core.list_namespaced_resource_quota(project.namespace).items}
    limits = core.list_namespaced_limit_range(project.namespace).items
    assert labels["pincompute.io/project"] == project.name
    assert labels["pincompute.io/team"] == "Ads-Ranking"  # a label value has no spaces
    assert labels[COST_CENTER_LABEL] == "CC-1042"
    assert labels["app.kubernetes.io/managed-by"] == "pincompute"
    assert quotas["pincompute-reserved"] == {
        "requests.cpu": "4",
        "requests.memory": "16Gi",
        "requests.nvidia.com/gpu": "0",
    }
    assert quotas["pincompute-preemptible"]["requests.cpu"] == "0"  # no grant: nothing may run in that tier
    assert [lr.metadata.name for lr in limits] == ["pincompute-defaults"]
    assert [o["kind"] for o in first] == ["Namespace", "ResourceQuota", "ResourceQuota", "ResourceQuota", "LimitRange"]
    assert [_desired(o) for o in second] == [_desired(o) for o in first]
    # Nothing was written the second time (the quota controller does write ResourceQuota status, so only
    # the objects no controller touches can show it by their resourceVersion).
    unchanged = [(o["kind"], o["metadata"]["resourceVersion"]) for o in first if o["kind"] != "ResourceQuota"]
    assert [(o["kind"], o["metadata"]["resourceVersion"]) for o in second if o["kind"] != "ResourceQuota"] == unchanged


def _desired(obj: dict) -> tuple:
    return obj["kind"], obj["metadata"]["name"], obj["metadata"].get("labels"), obj.get("spec")


def test_a_changed_grant_is_applied_by_the_next_run(member, project, admin_user):
    project_services.grant_quota(
        project=project,
        cluster=member,
        tier=Tier.ONDEMAND,
        cpu_milli=2000,
        memory_bytes=4 * GIB,
        gpu=1,
        actor=admin_user,
    )
    provision_project(project, member)
    project_services.grant_quota(
        project=project,
        cluster=member,
        tier=Tier.ONDEMAND,
        cpu_milli=8000,
        memory_bytes=4 * GIB,
        gpu=1,
        actor=admin_user,
    )
    provision_project(project, member)

    core = client.CoreV1Api(runtime.api_for(member))
    hard = core.read_namespaced_resource_quota("pincompute-ondemand", project.namespace).spec.hard
    assert hard["requests.cpu"] == "8" and hard["requests.nvidia.com/gpu"] == "1"


def test_an_unreachable_cluster_is_unavailable(member, project, tmp_path):
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

    with pytest.raises(Unavailable, match="member-gone"):
        provision_project(project, gone)


@pytest.mark.parametrize(
    ("text", "value"),
    [("CC-1042", "CC-1042"), ("ads ranking/eu", "ads-ranking-eu"), ("-x-", "x"), ("a" * 80, "a" * 63), ("", "")],
)
def test_label_values_are_valid_kubernetes_label_values(text, value):
    assert label_value(text) == value
