# ruff: noqa: F811 - fixtures imported from other conftests are named as parameters
"""A project's policy set in the portal reaches kubectl on the host in one chain: a platform admin sets it through the
API, provisioning writes it onto the project's host namespace, and the host's admission webhook (the federation
operator's, as the chart and the dev stack run it) refuses a workload applied with kubectl, naming the field and the
rule in the portal's words; a compliant one is accepted; lifting the rule in the portal lets the same write through."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kubernetes import client

from devtools.waiting import wait_for
from pincompute.labels import POLICY_ANNOTATION
from projects.provisioning import tenant_of
from tests.support.federation import host_kubectl
from tests.support.journey import project  # noqa: F401 - fixture, used by name
from tests.support.projects_api import as_
from tests.support.provisioning import eager_tasks, federation, pools, register  # noqa: F401
from tests.support.workload_operator import created, operator  # noqa: F401
from workloads.examples import example

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]
RULE = "spec.template.containers[0].image: registry quay.io is not in this project's allowlist"


def _app(project_name: str, namespace: str, name: str, image: str) -> dict[str, Any]:
    document: dict[str, Any] = example("PinApp", project=project_name)
    document["metadata"].update(name=name, namespace=namespace)
    document["spec"]["replicas"] = 1
    document["spec"]["template"]["containers"][0]["image"] = image
    return document


def _annotation(cluster_api_clients: Any, namespace: str) -> str:
    ns = client.CoreV1Api(cluster_api_clients["host"]).read_namespace(namespace)
    return (ns.metadata.annotations or {}).get(POLICY_ANNOTATION, "")


def test_a_policy_set_in_the_portal_refuses_kubectl_on_the_host_naming_the_rule(
    operator, created, project, admin_user, local_control_plane, cluster_api_clients
):
    kubeconfig = Path(local_control_plane.kubeconfig_path)
    policy = f"/api/v1/projects/{project.name}/policy/"
    ns = project.namespace
    image = example("PinApp", project=project.name)["spec"]["template"]["containers"][0]["image"]
    allowed_registry = image.rsplit("/", 1)[0]

    answer = as_(admin_user).put(policy, {"imageRegistries": [allowed_registry]}, format="json")
    assert answer.status_code == 200, answer.json()
    project.refresh_from_db()
    wanted = tenant_of(project).policy
    wait_for(lambda: allowed_registry in _annotation(cluster_api_clients, ns), 60, what="the policy on the namespace")

    foreign = host_kubectl(kubeconfig, "apply", "-f", "-", manifest=_app(project.name, ns, "foreign", "quay.io/x/y:1"))
    compliant = host_kubectl(kubeconfig, "apply", "-f", "-", manifest=_app(project.name, ns, "ours", image))
    created.append(("PinApp", ns, "ours"))

    assert wanted.registries == (allowed_registry,)
    assert foreign.returncode != 0 and RULE in foreign.stderr, foreign.stderr
    assert "(policy: image registries)" in foreign.stderr, foreign.stderr
    assert compliant.returncode == 0, compliant.stderr

    assert as_(admin_user).put(policy, {}, format="json").status_code == 200  # every rule lifted
    wait_for(lambda: allowed_registry not in _annotation(cluster_api_clients, ns), 60, what="the policy lifted")
    again = _app(project.name, ns, "foreign", "quay.io/x/y:1")
    lifted = wait_for(
        lambda: (r := host_kubectl(kubeconfig, "apply", "-f", "-", manifest=again)).returncode == 0 and r,
        30,
        interval=0.5,
        what="the same write accepted",
    )
    created.append(("PinApp", ns, "foreign"))
    assert "created" in lifted.stdout
