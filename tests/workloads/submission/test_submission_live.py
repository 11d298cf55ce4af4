"""The submission and operations services against the real host apiserver: what they write, what they
refuse (and that a refusal writes nothing), and who may do it."""

from __future__ import annotations

import copy

import pytest

from base.errors import Conflict, Forbidden, Invalid, NotFound
from base.models import AuditEvent
from projects.access import visible_project
from tests.support.submission import APP, on_host, owner_developer_viewer_project, pinapp
from workloads import services
from workloads.services import NeverFits

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]


@pytest.fixture
def project(admin_user, user, other_user):
    return owner_developer_viewer_project("sub", admin_user, user, other_user)


def test_a_submission_is_completed_for_its_project_written_once_to_the_host_and_audited(
    project, user, cluster_api_clients
):
    accepted = services.submit_workload(project, pinapp(), actor=user)

    live = on_host(cluster_api_clients["host"], project)
    assert accepted.created and live["metadata"]["uid"] == accepted.manifest["metadata"]["uid"]
    assert live["spec"]["project"] == project.name and live["spec"]["costCenter"] == project.cost_center
    assert live["metadata"]["namespace"] == project.namespace
    row = AuditEvent.objects.get(action="workload.create", target_name="web")
    assert (row.actor_name, row.project_name, row.target_kind) == (user.username, project.name, "PinApp")

    edited = pinapp(replicas=3)
    again = services.submit_workload(project, edited, actor=user, version=accepted.version)
    assert not again.created and on_host(cluster_api_clients["host"], project)["spec"]["replicas"] == 3
    with pytest.raises(Conflict) as stale:
        services.submit_workload(project, pinapp(replicas=4), actor=user, version=accepted.version)
    assert accepted.version in str(stale.value) and again.version in str(stale.value)
    with pytest.raises(Conflict):
        services.submit_workload(project, pinapp(), actor=user, create_only=True)


@pytest.mark.parametrize(
    ("document", "error", "path"),
    [
        (
            pinapp(template={"containers": [{**APP, "securityContext": {"privileged": True}}]}),
            Invalid,
            "spec.template.containers[0].securityContext.privileged",
        ),
        (pinapp(template={"hostNetwork": True, "containers": [APP]}), Invalid, "spec.template.hostNetwork"),
        (
            pinapp(replicas=2, template={"containers": [{**APP, "resources": {"requests": {"cpu": "3"}}}]}),
            NeverFits,
            "OnDemand.cpu",
        ),
        (pinapp(project="someone-else"), Invalid, "spec.project"),
        ({**pinapp(), "metadata": {"name": "web", "namespace": "kube-system"}}, Invalid, "metadata.namespace"),
        (pinapp(replicas=-1), Invalid, "spec.replicas"),
        ({**pinapp(), "kind": "Deployment"}, Invalid, "kind"),
        ({**pinapp(), "metadata": {"name": "web", "labels": {"pincompute.io/federated": "true"}}}, Invalid, None),
    ],
)
def test_a_refused_submission_names_the_field_and_writes_nothing(
    project, user, cluster_api_clients, document, error, path
):
    with pytest.raises(error) as refused:
        services.submit_workload(project, copy.deepcopy(document), actor=user)

    if path:
        assert path in {f.path for f in refused.value.fields}, refused.value.fields
    assert on_host(cluster_api_clients["host"], project) is None
    assert not AuditEvent.objects.filter(action__startswith="workload.").exists()


def test_viewers_are_refused_and_other_tenants_do_not_see_the_project(project, other_user, django_user_model):
    with pytest.raises(Forbidden):
        services.submit_workload(project, pinapp(), actor=other_user)
    stranger = django_user_model.objects.create_user("stranger")
    with pytest.raises(NotFound):
        visible_project(stranger, project.name)
    with pytest.raises(NotFound):
        services.submit_workload(project, pinapp(), actor=stranger)


def test_operations_patch_the_host_object_conditionally_and_are_audited(project, user, other_user, cluster_api_clients):
    accepted = services.submit_workload(project, pinapp(), actor=user)
    host = cluster_api_clients["host"]

    services.operate_workload(project, "PinApp", "web", "scale", actor=user, replicas=4)
    services.operate_workload(project, "PinApp", "web", "pause", actor=user)
    services.operate_workload(project, "PinApp", "web", "restart-container", actor=user, container="app")

    spec = on_host(host, project)["spec"]
    assert spec["replicas"] == 4 and spec["operations"]["paused"] is True
    assert spec["operations"]["restartContainer"]["container"] == "app"
    actions = list(
        AuditEvent.objects.filter(action__startswith="workload.").order_by("id").values_list("action", flat=True)
    )
    assert actions == ["workload.create", "workload.scale", "workload.pause", "workload.restart-container"]
    with pytest.raises(Conflict):
        services.operate_workload(project, "PinApp", "web", "resume", actor=user, version=accepted.version)
    with pytest.raises(Invalid):
        services.operate_workload(project, "PinApp", "web", "restart-container", actor=user, container="nope")
    with pytest.raises(NeverFits):
        services.operate_workload(project, "PinApp", "web", "scale", actor=user, replicas=1000)
    with pytest.raises(Forbidden):
        services.operate_workload(project, "PinApp", "web", "stop", actor=other_user)
    with pytest.raises(NotFound):
        services.operate_workload(project, "PinApp", "missing", "stop", actor=user)

    services.delete_workload(project, "PinApp", "web", actor=user)
    assert on_host(host, project) is None or on_host(host, project)["metadata"].get("deletionTimestamp")
    assert AuditEvent.objects.filter(action="workload.delete", target_name="web").exists()
