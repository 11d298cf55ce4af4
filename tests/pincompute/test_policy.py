"""A project's pod security level, checked at submission with the refused field named."""

import copy

import pytest

from pincompute.placement import Placement
from pincompute.policy import policy_violations
from pincompute.runtime import load_profile
from pincompute.specs import validate
from pincompute.tenancy import PodSecurity
from pincompute.translate import translate
from tests.support.examples import example


def hostile(kind="PinPod"):
    manifest = copy.deepcopy(example(kind))
    pod = manifest["spec"]["template"] if kind == "PinApp" else manifest["spec"]
    pod["hostNetwork"] = True
    pod["hostPID"] = True
    pod["volumes"] = [{"name": "root", "hostPath": {"path": "/"}}]
    pod["containers"][0]["securityContext"] = {
        "privileged": True,
        "allowPrivilegeEscalation": True,
        "capabilities": {"add": ["SYS_ADMIN", "NET_BIND_SERVICE", "CHOWN"]},
    }
    return manifest


@pytest.mark.parametrize("kind", ["PinPod", "PinApp"])
def test_baseline_refuses_privileged_host_namespaces_host_path_and_added_capabilities(kind):
    base = "spec.template" if kind == "PinApp" else "spec"

    errors = {e.path: e.message for e in policy_violations(hostile(kind), PodSecurity.BASELINE)}

    assert set(errors) == {
        f"{base}.hostNetwork",
        f"{base}.hostPID",
        f"{base}.volumes[0].hostPath",
        f"{base}.containers[0].securityContext.privileged",
        f"{base}.containers[0].securityContext.capabilities.add[0]",
    }
    assert "pod security level (baseline)" in errors[f"{base}.containers[0].securityContext.privileged"]


def test_restricted_also_refuses_escalation_and_baseline_capabilities_and_privileged_allows_all():
    restricted = {e.path for e in policy_violations(hostile(), PodSecurity.RESTRICTED)}

    assert "spec.containers[0].securityContext.allowPrivilegeEscalation" in restricted
    assert "spec.containers[0].securityContext.capabilities.add[2]" in restricted  # CHOWN
    assert "spec.containers[0].securityContext.capabilities.add[1]" not in restricted  # NET_BIND_SERVICE
    assert policy_violations(hostile(), PodSecurity.PRIVILEGED) == []
    assert policy_violations(example("PinPod"), PodSecurity.RESTRICTED) == []
    assert policy_violations({"kind": "PinPod", "spec": "nonsense"}, PodSecurity.BASELINE) == []


def test_what_a_privileged_project_may_run_is_valid_and_reaches_the_pod():
    manifest = hostile()
    assert validate(manifest) == []

    objects = translate(manifest, load_profile(), Placement("member-a", "z1"))

    (pod,) = [o for o in objects if o["kind"] == "Pod"]
    assert pod["spec"]["hostNetwork"] is True and pod["spec"]["hostPID"] is True
    app = next(c for c in pod["spec"]["containers"] if c["name"] == manifest["spec"]["containers"][0]["name"])
    assert app["securityContext"]["privileged"] is True
