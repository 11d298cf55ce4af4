"""The library's Pod Security verdict against a real apiserver's: hypothesis varies the security-relevant fields of
workload specs of every kind, translates them as a member would, and dry-runs every pod (``dryRun=All``) in
member-a namespaces labelled ``pod-security.kubernetes.io/enforce=baseline`` and ``=restricted`` (the labels
provisioning writes). No spec the library accepts may be refused, and none it refuses may be accepted: the library
has no stricter rule for anything generated here (its one deliberate one, a volume source the apiserver does not
know, is in docs/projects.md)."""

from __future__ import annotations

import copy
import json
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubernetes import client

from devtools.operator_process import install_crds
from devtools.waiting import wait_for
from pincompute.kinds import KINDS
from pincompute.podsecurity import Pod, pod_security_violations, translated_pods
from pincompute.runtime import load_profile
from pincompute.specs import validate
from pincompute.specs.common import build_pod
from pincompute.tenancy import PodSecurity, pod_security_labels
from tests.support.examples import example

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(300)]

LEVELS = (PodSecurity.BASELINE, PodSecurity.RESTRICTED)
POD_KINDS = [kind for kind, info in KINDS.items() if info.runs_pods]
HARDENED_POD = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
HARDENED_CONTAINER = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
DELETE = object()
PROFILES = [{"type": "RuntimeDefault"}, {"type": "Unconfined"}, {"type": "Localhost", "localhostProfile": "p.json"}]
CONTEXT_VALUES: dict[str, list[Any]] = {
    "runAsUser": [0, 1000, DELETE],
    "runAsNonRoot": [True, False, DELETE],
    "seccompProfile": [*PROFILES, DELETE],
    "appArmorProfile": PROFILES,
    "seLinuxOptions": [{"type": "container_t"}, {"type": "spc_t"}, {"user": "u"}, {"role": "r"}, {"level": "s0:c1"}],
    "windowsOptions": [{"hostProcess": True}, {"hostProcess": False}, {"runAsUserName": "app"}],
}
CONTAINER_VALUES: dict[str, list[Any]] = {
    **CONTEXT_VALUES,
    "privileged": [True, False],
    "allowPrivilegeEscalation": [True, False, DELETE],
    "procMount": ["Default", "Unmasked"],
    "readOnlyRootFilesystem": [True],
    "capabilities": [
        {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]},
        {"drop": ["ALL"], "add": ["CHOWN"]},
        {"drop": ["all"]},
        {"drop": ["NET_RAW"]},
        {"add": ["SYS_ADMIN"]},
        {"add": ["CAP_CHOWN"]},
        {"add": ["KILL", "AUDIT_WRITE"]},
        DELETE,
    ],
}
POD_VALUES: dict[str, list[Any]] = {
    **CONTEXT_VALUES,
    "sysctls": [[{"name": "net.ipv4.tcp_keepalive_time", "value": "60"}], [{"name": "kernel.msgmax", "value": "1"}]],
    "fsGroup": [2000],
}
SPEC_VALUES: dict[str, list[Any]] = {
    "hostNetwork": [True, False],
    "hostPID": [True],
    "hostIPC": [True],
    "volumes": [
        [{"name": "scratch", "emptyDir": {}}],
        [{"name": "plain"}],
        [{"name": "conf", "configMap": {"name": "c"}}, {"name": "token", "secret": {"secretName": "s"}}],
        [{"name": "root", "hostPath": {"path": "/"}}],
        [{"name": "share", "nfs": {"server": "nfs.local", "path": "/data"}}],
    ],
    "probeHost": ["10.0.0.1"],
}
MUTATIONS = [
    *(
        (target, field, value)
        for target in ("container", "sidecar")
        for field, values in CONTAINER_VALUES.items()
        for value in values
    ),
    *(("pod", field, value) for field, values in POD_VALUES.items() for value in values),
    *(("spec", field, value) for field, values in SPEC_VALUES.items() for value in values),
]
"""Every single change the tests make: (where, field, value)."""
TALLY = {"examples": 0, "accepted": 0, "refused": 0, "stricter": 0}


@st.composite
def workloads(draw: st.DrawFn) -> dict[str, Any]:
    """A manifest of any kind with pods: hardened for restricted or not, then up to three fields changed."""
    return changed(
        draw(st.sampled_from(POD_KINDS)), draw(st.booleans()), draw(st.lists(st.sampled_from(MUTATIONS), max_size=3))
    )


def changed(kind: str, hardened: bool, mutations: list[tuple[str, str, Any]]) -> dict[str, Any]:
    """The kind's example, hardened for restricted or not, with ``mutations`` applied in order."""
    manifest = copy.deepcopy(example(kind))
    pod = manifest["spec"]["template"] if manifest["kind"] == "PinApp" else manifest["spec"]
    if hardened:
        pod["securityContext"] = copy.deepcopy(HARDENED_POD)
        for container in [*pod["containers"], *pod.get("sidecars", [])]:
            container["securityContext"] = copy.deepcopy(HARDENED_CONTAINER)
    for target, field, value in mutations:
        if target == "spec":
            if field == "probeHost":
                pod["containers"][0]["livenessProbe"] = {"tcpSocket": {"host": value, "port": 8080}}
            else:
                pod[field] = copy.deepcopy(value)
            continue
        if target == "sidecar" and not pod.get("sidecars"):
            continue
        holder = {"pod": pod, "container": pod["containers"][0], "sidecar": pod.get("sidecars", [{}])[0]}[target]
        context = holder.setdefault("securityContext", {})
        if value is DELETE:
            context.pop(field, None)
        else:
            context[field] = copy.deepcopy(value)
    return manifest


@pytest.fixture(scope="module")
def enforcing(local_control_plane, cluster_api_clients) -> dict[PodSecurity, str]:
    """A member-a namespace per level, labelled as provisioning labels a project's, its service account ready."""
    install_crds(local_control_plane.kubeconfig_path, ("member-a",))  # the tiers' PriorityClasses
    core = client.CoreV1Api(cluster_api_clients["member-a"])
    names = {}
    for level in LEVELS:
        name = f"pss-{level.value}-{uuid.uuid4().hex[:6]}"
        meta = client.V1ObjectMeta(name=name, labels=pod_security_labels(level))
        core.create_namespace(client.V1Namespace(metadata=meta))
        wait_for(lambda n=name: core.list_namespaced_service_account(n).items, 60, what=f"{name}'s default SA")
        names[level] = name
    yield names
    for name in names.values():
        core.delete_namespace(name)
    print(f"\npod security comparison: {TALLY}")


def apiserver_refusal(api: client.ApiClient, namespace: str, manifest: dict[str, Any]) -> str | None:
    """Why the apiserver refuses any pod of the workload (a dry run: nothing is written), or None."""
    core = client.CoreV1Api(api)
    seen = set()
    pods = translated_pods(manifest, load_profile())
    if not pods:  # validation refuses it, so translation cannot run: the user's part of the pod as it is
        raw = manifest["spec"]["template"] if manifest["kind"] == "PinApp" else manifest["spec"]
        pods = [Pod({}, build_pod(raw).to_pod_spec())]
    for pod in pods:
        key = json.dumps(pod.spec, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        body = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "pss-check", "annotations": dict(pod.annotations)},
            "spec": pod.spec,
        }
        try:
            core.create_namespaced_pod(namespace, body, dry_run="All")
        except client.ApiException as exc:
            if exc.status not in (403, 422):
                raise
            return str(json.loads(exc.body).get("message"))
    return None


def disagreement(api: client.ApiClient, enforcing: dict[PodSecurity, str], manifest: dict[str, Any]) -> str | None:
    """How the library's verdict differs from the apiserver's at either level, or None when they agree."""
    spec_errors = validate(manifest)
    for level, namespace in enforcing.items():
        refused_by = spec_errors or pod_security_violations(manifest, level)
        apiserver = apiserver_refusal(api, namespace, manifest)
        TALLY["examples"] += 1
        TALLY["accepted" if not refused_by else "refused"] += 1
        if not refused_by and apiserver:
            return f"{level.value}: the library accepts what the apiserver refuses: {apiserver}"
        if refused_by and not apiserver:
            TALLY["stricter"] += 1
            return f"{level.value}: the library refuses what the apiserver accepts: {refused_by}"
    return None


def test_every_single_change_to_a_restricted_spec_gets_the_apiservers_verdict(enforcing, cluster_api_clients):
    differ = {
        f"{where}.{field}={value!r}": said
        for where, field, value in MUTATIONS
        if (
            said := disagreement(
                cluster_api_clients["member-a"], enforcing, changed("PinPod", True, [(where, field, value)])
            )
        )
    }

    assert differ == {}, "\n".join(f"{k}: {v}" for k, v in differ.items())


@settings(
    max_examples=50,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(manifest=workloads())
def test_the_library_and_the_apiserver_agree_on_generated_specs_of_every_kind(manifest, enforcing, cluster_api_clients):
    said = disagreement(cluster_api_clients["member-a"], enforcing, manifest)

    assert said is None, said
