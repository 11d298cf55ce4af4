"""The project's Pod Security level and the securityContext types through the API, in JSON and in YAML: the field,
the rule and the level are named in the one error body (400), and nothing is written. The issue's probes: a string
for a boolean, procMount Unmasked, seccomp Unconfined, SELinux spc_t, AppArmor Unconfined, hostProcess."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.support.workloads_api import NEW, paths, quiet

pytestmark = pytest.mark.django_db
CONTEXT = "spec.containers[0].securityContext"
PROBES = {
    "string-for-boolean": ({"privileged": "true"}, f"{CONTEXT}.privileged", "must be true or false, got a string"),
    "number-as-string": ({"runAsUser": "0"}, f"{CONTEXT}.runAsUser", "must be a whole number, got a string"),
    "proc-mount": ({"procMount": "Unmasked"}, f"{CONTEXT}.procMount", "'/proc Mount Type'"),
    "seccomp": ({"seccompProfile": {"type": "Unconfined"}}, f"{CONTEXT}.seccompProfile.type", "'Seccomp'"),
    "selinux": ({"seLinuxOptions": {"type": "spc_t"}}, f"{CONTEXT}.seLinuxOptions.type", "'SELinux'"),
    "apparmor": ({"appArmorProfile": {"type": "Unconfined"}}, f"{CONTEXT}.appArmorProfile.type", "'AppArmor'"),
    "host-process": (
        {"windowsOptions": {"hostProcess": True}},
        f"{CONTEXT}.windowsOptions.hostProcess",
        "baseline: windowsOptions.hostProcess must not be true (Pod Security Standard 'HostProcess')",
    ),
}


def pin_pod(context: dict[str, Any]) -> dict[str, Any]:
    container = {"name": "c", "image": "registry.local/app:1", "securityContext": context}
    return {
        "apiVersion": "pincompute.io/v1",
        "kind": "PinPod",
        "metadata": {"name": "p1"},
        "spec": {"containers": [container]},
    }


@pytest.mark.parametrize("encoding", ["json", "yaml"])
@pytest.mark.parametrize(("context", "path", "said"), PROBES.values(), ids=PROBES.keys())
def test_what_the_projects_level_refuses_is_a_400_naming_field_and_rule(
    fake_host, developer, encoding, context, path, said
):
    document = pin_pod(context)
    api = quiet(developer)

    if encoding == "json":
        response = api.post(NEW, document, format="json")
    else:
        response = api.post(NEW, yaml.safe_dump(document), content_type="application/yaml")

    assert said in paths(response)[path]
    assert fake_host.objects == {}
