"""Network isolation against the real local apiservers (host + two members): every member holds the project's
NetworkPolicies after onboarding; an owner's opening (through the API) reaches every member, a developer's is
refused; the reconcile pass brings back a deleted or hand-edited policy; tenants read the policies but the
apiserver refuses them every write. kwok runs no CNI, so nothing here sends a packet: the objects are tested
(what a CNI would enforce is held to ``pincompute.netpol.admits`` in tests/pincompute/test_netpol.py)."""

import json
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone
from kubernetes import client
from rest_framework.test import APIClient

from devtools.localcp.nodes import api_client
from pincompute.netpol import ISOLATION_POLICY, NAMESPACE_NAME_LABEL, OPENINGS_POLICY
from projects.members import MemberInput, set_member
from projects.models import ClusterProvisioning
from projects.tasks import reconcile_all
from tests.support.provisioning import onboard, states

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]


def _name() -> str:
    return f"net-{uuid.uuid4().hex[:6]}"


def _policies(api: client.ApiClient, namespace: str) -> dict[str, client.V1NetworkPolicySpec]:
    found = client.NetworkingV1Api(api).list_namespaced_network_policy(namespace).items
    return {p.metadata.name: p.spec for p in found}


def _peers(rule: client.V1NetworkPolicyIngressRule) -> list[str]:
    return sorted(
        p.namespace_selector.match_labels[NAMESPACE_NAME_LABEL] if p.namespace_selector else "same namespace"
        for p in rule._from
    )


def _member_apis(federation, cluster_api_clients) -> dict[str, client.ApiClient]:
    return {c.name: cluster_api_clients[c.name] for c in federation if c.role == "member"}


def test_every_member_isolates_a_new_project(federation, cluster_api_clients, admin_user, user):
    project = onboard(_name(), admin_user, members=[("user", user.username, "owner")])

    members = _member_apis(federation, cluster_api_clients)
    assert len(members) == 2
    for api in members.values():
        policies = _policies(api, project.namespace)
        assert sorted(policies) == [ISOLATION_POLICY, OPENINGS_POLICY]
        isolation = policies[ISOLATION_POLICY]
        assert isolation.pod_selector.match_labels is None and isolation.policy_types == ["Ingress"]
        assert [_peers(r) for r in isolation.ingress] == [["monitoring", "same namespace"]]
        assert [_peers(r) for r in policies[OPENINGS_POLICY].ingress] == [["same namespace"]]  # no opening
    host = cluster_api_clients[next(c.name for c in federation if c.role == "host")]
    assert _policies(host, project.namespace) == {}  # pods run on members only


def test_an_owners_opening_reaches_every_member_and_a_developers_is_refused(
    federation, cluster_api_clients, admin_user, user, other_user
):
    web = onboard(_name(), admin_user, members=[("user", user.username, "owner")])
    payments = onboard(
        _name(), admin_user, members=[("user", admin_user.username, "owner"), ("user", user.username, "viewer")]
    )
    set_member(web, MemberInput("user", other_user.username, "developer"), actor=user)
    api = APIClient()
    body = {"openings": [{"port": 8443, "protocol": "TCP", "projects": [payments.name], "ingress": True}]}

    api.force_authenticate(other_user)
    assert api.put(f"/api/v1/projects/{web.name}/network/", body, format="json").status_code == 403
    api.force_authenticate(user)
    answer = api.put(f"/api/v1/projects/{web.name}/network/", body, format="json")

    assert answer.status_code == 200, answer.content
    web.refresh_from_db()
    assert states(web) == {c.name: ("ready", web.generation) for c in federation}
    for api_member in _member_apis(federation, cluster_api_clients).values():
        [rule] = _policies(api_member, web.namespace)[OPENINGS_POLICY].ingress
        assert [(p.port, p.protocol) for p in rule.ports] == [(8443, "TCP")]
        assert _peers(rule) == sorted(["ingress-nginx", payments.namespace])

    api.put(f"/api/v1/projects/{web.name}/network/", {"openings": []}, format="json")
    for api_member in _member_apis(federation, cluster_api_clients).values():
        closed = _policies(api_member, web.namespace)[OPENINGS_POLICY]
        assert [_peers(r) for r in closed.ingress] == [["same namespace"]]  # closed everywhere


def test_the_reconcile_pass_brings_back_a_deleted_or_edited_policy(federation, cluster_api_clients, admin_user):
    project = onboard(_name(), admin_user)
    member_a, member_b = (cluster_api_clients[n] for n in ("member-a", "member-b"))
    networking_a, networking_b = client.NetworkingV1Api(member_a), client.NetworkingV1Api(member_b)
    networking_a.delete_namespaced_network_policy(ISOLATION_POLICY, project.namespace)
    wide_open = {"spec": {"ingress": [{}], "podSelector": {"matchLabels": {"only": "these"}}}}  # admit everyone
    networking_b.patch_namespaced_network_policy(OPENINGS_POLICY, project.namespace, wide_open)
    assert ISOLATION_POLICY not in _policies(member_a, project.namespace)

    ClusterProvisioning.objects.filter(project=project).update(last_success_at=timezone.now() - timedelta(hours=1))
    reconcile_all()

    assert [_peers(r) for r in _policies(member_a, project.namespace)[ISOLATION_POLICY].ingress] == [
        ["monitoring", "same namespace"]
    ]
    repaired = _policies(member_b, project.namespace)[OPENINGS_POLICY]
    assert [_peers(r) for r in repaired.ingress] == [["same namespace"]]
    assert repaired.pod_selector.match_labels is None


@pytest.fixture
def as_user(local_control_plane) -> Iterator:
    opened: list[client.ApiClient] = []

    def make(context: str, user: str) -> client.ApiClient:
        api = api_client(str(local_control_plane.kubeconfig_path), context)
        api.set_default_header("Impersonate-User", user)
        opened.append(api)
        return api

    yield make
    for api in opened:
        api.close()


def test_an_owner_reads_the_policies_on_a_member_but_the_apiserver_refuses_every_write(
    federation, admin_user, user, as_user
):
    project = onboard(_name(), admin_user, members=[("user", user.username, "owner")])
    networking = client.NetworkingV1Api(as_user("member-a", user.username))

    assert sorted(p.metadata.name for p in networking.list_namespaced_network_policy(project.namespace).items) == [
        ISOLATION_POLICY,
        OPENINGS_POLICY,
    ]
    for write in (
        lambda: networking.delete_namespaced_network_policy(ISOLATION_POLICY, project.namespace),
        lambda: networking.patch_namespaced_network_policy(ISOLATION_POLICY, project.namespace, {"spec": {}}),
        lambda: networking.create_namespaced_network_policy(
            project.namespace, {"metadata": {"name": "allow-all"}, "spec": {"podSelector": {}, "ingress": [{}]}}
        ),
    ):
        with pytest.raises(client.ApiException) as refused:
            write()
        assert refused.value.status == 403
        assert 'resource "networkpolicies"' in json.loads(refused.value.body)["message"]
