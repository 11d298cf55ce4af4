"""The project's policy at submission through the API, in JSON and in YAML: what it forbids is a 400 whose fields
name the field and the rule (``pincompute.policy``, the function the host's admission judges by too), and nothing
is written to the host."""

from __future__ import annotations

import pytest
import yaml

from projects.policy import set_project_policy
from tests.support.workloads_api import NEW, paths, quiet

pytestmark = pytest.mark.django_db
STRICT = {
    "allowedKinds": ["PinApp", "PinPod"],
    "imageRegistries": ["registry.local/search"],
    "maxPerContainer": {"cpu": "2", "memory": "4Gi"},
}


def pin_pod(image: str = "registry.local/search/app:1", **resources: dict) -> dict:
    container = {"name": "c", "image": image, **({"resources": resources} if resources else {})}
    return {
        "apiVersion": "pincompute.io/v1",
        "kind": "PinPod",
        "metadata": {"name": "p1"},
        "spec": {"containers": [container]},
    }


@pytest.mark.parametrize("encoding", ["json", "yaml"])
def test_submission_refuses_what_the_policy_forbids_naming_field_and_rule(
    fake_host, project, admin_user, developer, encoding
):
    set_project_policy(project, STRICT, actor=admin_user)
    document = pin_pod("quay.io/search/app:1", limits={"cpu": "3"})
    api = quiet(developer)

    if encoding == "json":
        answer = api.post(NEW, document, format="json")
    else:
        answer = api.post(NEW, yaml.safe_dump(document), content_type="application/yaml")

    found = paths(answer)
    assert found["spec.containers[0].image"] == (
        "registry quay.io is not in this project's allowlist (registry.local/search) (policy: image registries)"
    )
    assert found["spec.containers[0].resources.limits.cpu"].endswith("(policy: max resources per container)")
    assert fake_host.objects == {}


def test_a_kind_the_policy_does_not_list_is_refused_and_an_allowed_one_goes_through(
    fake_host, project, admin_user, developer
):
    set_project_policy(project, {**STRICT, "allowedKinds": ["PinApp"]}, actor=admin_user)

    refused = quiet(developer).post(NEW, pin_pod(), format="json")
    set_project_policy(project, STRICT, actor=admin_user)
    accepted = quiet(developer).post(NEW, pin_pod(), format="json")

    assert paths(refused)["kind"].endswith("(policy: allowed kinds)")
    assert accepted.status_code == 201, accepted.json()
