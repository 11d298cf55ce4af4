"""What a project's members may do on a member cluster, asked of the real local apiservers as they authenticate them
(the RoleBindings name the portal's usernames and OIDC groups; the admin kubeconfig impersonates them): they read,
and the apiserver refuses every write of a workload object or native workload object with a 403 naming the verb. A
member that still carries an older release's rules (developers could write workloads there) is brought to these by
the provisioning pass that re-applies tenancy."""

import json
import uuid
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import Group
from kubernetes import client

from devtools.localcp.nodes import api_client
from pincompute.rbac import ProjectRole
from projects.tasks import reconcile_all
from tests.support.provisioning import onboard

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]
GROUP, VERSION = "pincompute.io", "v1"
PINAPP = {
    "apiVersion": "pincompute.io/v1",
    "kind": "PinApp",
    "metadata": {"name": "bypass"},
    "spec": {"project": "p", "replicas": 1, "template": {"containers": [{"name": "a", "image": "r.local/a:1"}]}},
}
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "bypass"},
    "spec": {
        "selector": {"matchLabels": {"app": "bypass"}},
        "template": {"metadata": {"labels": {"app": "bypass"}}, "spec": {"containers": [{"name": "a", "image": "a"}]}},
    },
}
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "bypass"},
    "spec": {"containers": [{"name": "a", "image": "a"}]},
}
JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "bypass"},
    "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "a", "image": "a"}]}}},
}
# What an older release's developer ClusterRole granted on members (workload writes, scale, shells).
LEGACY_DEVELOPER_RULES = [
    {"apiGroups": [GROUP], "resources": ["pinapps", "pinapps/scale"], "verbs": ["get", "list", "create", "patch"]},
    {"apiGroups": [""], "resources": ["pods", "pods/exec"], "verbs": ["get", "list", "create"]},
]


def _as(kubeconfig: str, context: str, user: str, group: str | None = None) -> client.ApiClient:
    """An ApiClient on ``context`` that the apiserver authorizes as ``user`` (and ``group``)."""
    api = api_client(kubeconfig, context)
    api.set_default_header("Impersonate-User", user)
    if group:
        api.set_default_header("Impersonate-Group", group)
    return api


@pytest.fixture
def as_member(local_control_plane) -> Iterator:
    opened: list[client.ApiClient] = []

    def make(context: str, user: str, group: str | None = None) -> client.ApiClient:
        opened.append(_as(str(local_control_plane.kubeconfig_path), context, user, group))
        return opened[-1]

    yield make
    for api in opened:
        api.close()


def _refusal(call) -> str:
    with pytest.raises(client.ApiException) as refused:
        call()
    assert refused.value.status == 403, refused.value.body
    return json.loads(refused.value.body)["message"]


def _allowed(api: client.ApiClient, namespace: str, verb: str, resource: str, group: str = "", sub: str = "") -> bool:
    review = {"spec": {"resourceAttributes": {"namespace": namespace, "verb": verb, "group": group}}}
    review["spec"]["resourceAttributes"].update(resource=resource, subresource=sub)
    return client.AuthorizationV1Api(api).create_self_subject_access_review(review).status.allowed


def _reads_but_writes_nothing(api: client.ApiClient, namespace: str) -> None:
    custom, core = client.CustomObjectsApi(api), client.CoreV1Api(api)
    apps, batch = client.AppsV1Api(api), client.BatchV1Api(api)

    assert custom.list_namespaced_custom_object(GROUP, VERSION, namespace, "pinapps")["items"] == []
    assert core.list_namespaced_pod(namespace).items == []
    assert apps.list_namespaced_deployment(namespace).items == []

    said = _refusal(lambda: custom.create_namespaced_custom_object(GROUP, VERSION, namespace, "pinapps", PINAPP))
    assert 'cannot create resource "pinapps" in API group "pincompute.io"' in said
    said = _refusal(lambda: custom.patch_namespaced_custom_object(GROUP, VERSION, namespace, "pinapps", "x", {}))
    assert 'cannot patch resource "pinapps"' in said
    said = _refusal(lambda: custom.delete_namespaced_custom_object(GROUP, VERSION, namespace, "pinapps", "x"))
    assert 'cannot delete resource "pinapps"' in said
    assert 'cannot create resource "deployments"' in _refusal(
        lambda: apps.create_namespaced_deployment(namespace, DEPLOYMENT)
    )
    assert 'cannot create resource "jobs"' in _refusal(lambda: batch.create_namespaced_job(namespace, JOB))
    assert 'cannot create resource "pods"' in _refusal(lambda: core.create_namespaced_pod(namespace, POD))
    for verb, resource, api_group, sub in [
        ("update", "pinapps", GROUP, ""),
        ("patch", "pinapps", GROUP, "scale"),
        ("update", "pinapps", GROUP, "status"),
        ("create", "pinterestjobsets", GROUP, ""),
        ("deletecollection", "pinpods", GROUP, ""),
        ("patch", "deployments", "apps", ""),
        ("delete", "pods", "", ""),
        ("create", "pods", "", "exec"),
        ("create", "pods", "", "attach"),
        ("patch", "pods", "", "ephemeralcontainers"),  # debug containers: through the portal only
        ("create", "cronjobs", "batch", ""),
        ("create", "daemonsets", "apps", ""),
    ]:
        assert not _allowed(api, namespace, verb, resource, api_group, sub), (verb, resource, sub)
    assert _allowed(api, namespace, "get", "pods", "", "log")
    assert _allowed(api, namespace, "watch", "pinapps", GROUP)


def test_a_developer_with_a_member_kubeconfig_reads_but_the_apiserver_refuses_every_workload_write(
    federation, admin_user, user, other_user, as_member
):
    group = Group.objects.create(name=f"devs-{uuid.uuid4().hex[:4]}")
    project = onboard(
        f"rights-{uuid.uuid4().hex[:6]}",
        admin_user,
        members=[
            ("user", other_user.username, "owner"),
            ("user", user.username, "developer"),
            ("group", group.name, "developer"),
        ],
        grants={"ondemand": ("2", "4Gi", "0", "10")},
    )
    namespace = project.namespace
    for member in [c.name for c in federation if c.role == "member"]:
        for api in (as_member(member, user.username), as_member(member, "someone-else", group.name)):
            _reads_but_writes_nothing(api, namespace)
    owner = as_member("member-a", other_user.username)
    assert _allowed(owner, namespace, "list", "rolebindings", "rbac.authorization.k8s.io")
    assert not _allowed(owner, namespace, "create", "pinapps", GROUP)


def test_the_reconcile_pass_takes_an_older_releases_write_rights_away_from_existing_bindings(
    federation, admin_user, user, cluster_api_clients, as_member
):
    project = onboard(
        f"legacy-{uuid.uuid4().hex[:6]}",
        admin_user,
        members=[("user", admin_user.username, "owner"), ("user", user.username, "developer")],
        grants={"ondemand": ("2", "4Gi", "0", "10")},
    )
    rbac = client.RbacAuthorizationV1Api(cluster_api_clients["member-a"])
    name = ProjectRole.DEVELOPER.cluster_role
    rbac.patch_cluster_role(name, {"rules": LEGACY_DEVELOPER_RULES})  # the member as an older release left it
    developer = as_member("member-a", user.username)
    assert _allowed(developer, project.namespace, "create", "pinapps", GROUP)  # the bypass this closes

    reconcile_all(force=True)

    said = _refusal(
        lambda: client.CustomObjectsApi(developer).create_namespaced_custom_object(
            GROUP, VERSION, project.namespace, "pinapps", PINAPP
        )
    )
    assert f'User "{user.username}" cannot create resource "pinapps"' in said
    assert not _allowed(developer, project.namespace, "create", "pods", "", "exec")
    assert _allowed(developer, project.namespace, "list", "pinapps", GROUP)
