"""A project's pod security level, checked on the pods translation makes, each refusal at the field the user wrote
and naming the rule of the Pod Security Standards. The comparison with a real apiserver is
tests/pincompute/test_pod_security_apiserver.py."""

import copy

import pytest

from pincompute.kinds import KINDS
from pincompute.placement import Placement
from pincompute.podsecurity import pod_security_violations, translated_pods
from pincompute.runtime import load_profile
from pincompute.specs import validate
from pincompute.tenancy import PodSecurity
from pincompute.translate import translate
from tests.support.examples import example

POD_KINDS = [kind for kind, info in KINDS.items() if info.runs_pods]
RESTRICTED_POD = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
RESTRICTED_CONTAINER = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


def pod_of(manifest):
    return manifest["spec"]["template"] if manifest["kind"] == "PinApp" else manifest["spec"]


def hostile(kind="PinPod"):
    manifest = copy.deepcopy(example(kind))
    pod = pod_of(manifest)
    pod["hostNetwork"] = True
    pod["hostPID"] = True
    pod["volumes"] = [{"name": "root", "hostPath": {"path": "/"}}]
    pod["securityContext"] = {"sysctls": [{"name": "kernel.msgmax", "value": "65536"}], "seLinuxOptions": {"user": "u"}}
    pod["containers"][0]["securityContext"] = {
        "privileged": True,
        "allowPrivilegeEscalation": True,
        "capabilities": {"add": ["SYS_ADMIN", "NET_BIND_SERVICE", "CHOWN", "chown"]},
        "procMount": "Unmasked",
        "seccompProfile": {"type": "Unconfined"},
        "appArmorProfile": {"type": "Unconfined"},
        "seLinuxOptions": {"type": "spc_t", "role": "r"},
        "windowsOptions": {"hostProcess": True},
    }
    pod["containers"][0]["livenessProbe"] = {"tcpSocket": {"host": "10.0.0.1", "port": 22}}
    return manifest


def restricted(kind):
    manifest = copy.deepcopy(example(kind))
    pod = pod_of(manifest)
    pod["securityContext"] = copy.deepcopy(RESTRICTED_POD)
    for group in ("containers", "sidecars"):
        for container in pod.get(group) or []:
            container["securityContext"] = copy.deepcopy(RESTRICTED_CONTAINER)
    return manifest


@pytest.mark.parametrize("kind", ["PinPod", "PinApp"])
def test_baseline_refuses_every_baseline_control_at_the_field_written(kind):
    base = "spec.template" if kind == "PinApp" else "spec"
    container = f"{base}.containers[0]"

    errors = {e.path: e.message for e in pod_security_violations(hostile(kind), PodSecurity.BASELINE)}

    assert set(errors) == {
        f"{base}.hostNetwork",
        f"{base}.hostPID",
        f"{base}.volumes[0].hostPath",
        f"{base}.securityContext.sysctls[0].name",
        f"{base}.securityContext.seLinuxOptions.user",
        f"{container}.livenessProbe.tcpSocket.host",
        *(
            f"{container}.securityContext.{field}"
            for field in (
                "privileged",
                "capabilities.add[0]",
                "capabilities.add[3]",  # "chown": compared as written, as the apiserver does
                "procMount",
                "seccompProfile.type",
                "appArmorProfile.type",
                "seLinuxOptions.type",
                "seLinuxOptions.role",
                "windowsOptions.hostProcess",
            )
        ),
    }
    said = errors[f"{container}.securityContext.seccompProfile.type"]
    assert said == "baseline: seccompProfile.type must be RuntimeDefault or Localhost (Pod Security Standard 'Seccomp')"
    assert "(Pod Security Standard 'HostProcess')" in errors[f"{container}.securityContext.windowsOptions.hostProcess"]


def test_restricted_adds_its_controls_and_privileged_allows_all():
    errors = {e.path: e.message for e in pod_security_violations(hostile(), PodSecurity.RESTRICTED)}

    c = "spec.containers[0].securityContext"
    assert errors[f"{c}.allowPrivilegeEscalation"].startswith("restricted: ")
    assert f"{c}.capabilities.add[2]" in errors  # CHOWN: restricted adds only NET_BIND_SERVICE
    assert f"{c}.capabilities.add[1]" not in errors
    assert f"{c}.capabilities.drop" in errors and f"{c}.runAsNonRoot" in errors
    assert "spec.volumes[0].hostPath" in errors  # as a volume type restricted does not allow
    assert "spec.sidecars[0].securityContext.allowPrivilegeEscalation" in errors  # user sidecars too
    assert pod_security_violations(hostile(), PodSecurity.PRIVILEGED) == []
    assert pod_security_violations({"kind": "PinPod", "spec": "nonsense"}, PodSecurity.BASELINE) == []


@pytest.mark.parametrize("kind", POD_KINDS)
def test_a_restricted_spec_of_every_kind_passes_platform_containers_included(kind):
    manifest = restricted(kind)

    assert validate(manifest) == []
    assert pod_security_violations(manifest, PodSecurity.RESTRICTED) == []
    assert any(  # the platform's containers are checked too: they are in the pods
        c["name"].startswith("pincompute-")
        for pod in translated_pods(manifest, load_profile())
        for c in pod.spec["initContainers"]
    )


def test_restricted_wants_non_root_and_seccomp_per_container_when_the_pod_does_not_say():
    manifest = restricted("PinPod")
    del manifest["spec"]["securityContext"]
    manifest["spec"]["securityContext"] = {"runAsUser": 0}

    errors = {e.path for e in pod_security_violations(manifest, PodSecurity.RESTRICTED)}

    assert errors == {
        "spec.securityContext.runAsUser",
        *(
            f"spec.{c}.securityContext.{field}"
            for c in ("containers[0]", "sidecars[0]")
            for field in ("runAsNonRoot", "seccompProfile.type")
        ),
    }


def test_a_stopped_workload_is_checked_as_it_would_run():
    manifest = hostile()
    manifest["spec"]["operations"] = {"stopped": True}

    assert pod_security_violations(manifest, PodSecurity.BASELINE)


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("privileged", "true", "must be true or false, got a string"),
        ("runAsUser", "1000", "must be a whole number, got a string"),
        ("runAsUser", -1, "must be at least 0"),
        ("allowPrivilegeEscalation", 0, "must be true or false, got a number"),
        ("procMount", "unmasked", "is not one of Default, Unmasked"),
        ("capabilities", {"add": "NET_ADMIN"}, "must be a list"),
        ("seccompProfile", {"type": "Localhost"}, "is required with type Localhost"),
        ("seccompProfile", {"type": "RuntimeDefault", "localhostProfile": "p.json"}, "only be set with type Localhost"),
        ("runAsNonroot", True, "unknown field 'runAsNonroot'"),
    ],
)
def test_security_context_fields_have_the_apiservers_types(field, value, said):
    manifest = copy.deepcopy(example("PinApp"))
    manifest["spec"]["template"]["containers"][0]["securityContext"] = {field: value}

    errors = validate(manifest)

    assert errors and all(e.path.startswith("spec.template.containers[0].securityContext.") for e in errors)
    assert any(said in e.message for e in errors), errors


def test_pod_security_context_is_typed_and_reaches_the_pod():
    manifest = restricted("PinPod")
    manifest["spec"]["securityContext"]["fsGroup"] = "2000"
    assert [e.path for e in validate(manifest)] == ["spec.securityContext.fsGroup"]

    manifest["spec"]["securityContext"]["fsGroup"] = 2000
    (pod,) = [o for o in translate(manifest, load_profile(), Placement("member-a", "z1")) if o["kind"] == "Pod"]

    assert pod["spec"]["securityContext"] == {**RESTRICTED_POD, "fsGroup": 2000}


def test_what_a_privileged_project_may_run_is_valid_and_reaches_the_pod():
    manifest = hostile()
    pod_of(manifest)["containers"][0]["securityContext"]["windowsOptions"] = {"hostProcess": False}
    assert validate(manifest) == []

    objects = translate(manifest, load_profile(), Placement("member-a", "z1"))

    (pod,) = [o for o in objects if o["kind"] == "Pod"]
    assert pod["spec"]["hostNetwork"] is True and pod["spec"]["hostPID"] is True
    app = next(c for c in pod["spec"]["containers"] if c["name"] == manifest["spec"]["containers"][0]["name"])
    assert app["securityContext"]["privileged"] is True
