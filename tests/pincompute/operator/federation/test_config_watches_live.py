"""The host's per-namespace watches of a project's Secrets and ConfigMaps say why they have not listed: for an
identity without the project namespace's RoleBinding (pincompute/federation_rights.py) the apiserver's refusal is the
problem the propagator puts in the workload's ``ConfigsUnreadable`` Event; with the rights, they list and say
nothing."""

from __future__ import annotations

import uuid

import pytest
from kubernetes import client

from devtools.localcp.nodes import api_client
from devtools.waiting import wait_for
from pincompute.operator.federation.config_watches import ConfigWatches
from pincompute.operator.kubeio import Kube

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def _watches(local_control_plane, impersonate: str | None) -> ConfigWatches:
    api = api_client(str(local_control_plane.kubeconfig_path), "host")
    if impersonate:
        api.set_default_header("Impersonate-User", impersonate)
    return ConfigWatches(Kube(api, "host"), lambda _event, _obj: None)


def test_a_refused_list_is_the_namespaces_problem_and_a_granted_one_none(local_control_plane, cluster_api_clients):
    namespace = f"proj-watch-{uuid.uuid4().hex[:6]}"
    core = client.CoreV1Api(cluster_api_clients["host"])
    core.create_namespace({"metadata": {"name": namespace}})
    unbound = _watches(local_control_plane, "system:serviceaccount:pinconsole:operator-without-binding")
    admin = _watches(local_control_plane, None)
    try:
        unbound.ensure(namespace)
        admin.ensure(namespace)

        problem = wait_for(lambda: unbound.problem(namespace), 60, what="the refused list's reason")
        wait_for(lambda: admin.synced(namespace), 60, what="the admin's lists")

        assert "403" in problem or "forbidden" in problem.lower(), problem
        assert not unbound.synced(namespace)
        assert admin.problem(namespace) == ""
        assert unbound.problem("proj-never-watched") == ""
    finally:
        unbound.close()
        admin.close()
        core.delete_namespace(namespace)
