"""``kubectl apply`` on the host meets the host's ValidatingAdmissionPolicy, which the apiserver evaluates itself:
with the operator's webhook unregistered (so the refusals are the policy's alone), each bad workload is refused
with the portal's field path and sentence, a good one is accepted, a platform admin's break-glass write passes, and
``remove-webhook`` (the chart's pre-delete hook) removes the policy too.

Run alone: .venv/bin/pytest tests/pincompute/operator/federation/test_host_admission_policy.py -n 0
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes import client

from devtools.operator_process import OperatorProcess, unregister_webhook
from devtools.waiting import wait_for
from pincompute.errors import FieldError
from pincompute.federation.host_checks import project_problems
from pincompute.federation.host_policy import NAME
from pincompute.labels import BREAK_GLASS_ANNOTATION, BREAK_GLASS_GROUP
from pincompute.operator.webhook.tls import SECRET_NAME
from pincompute.specs import validate
from tests.support.federation import get, pinapp, remove_webhook
from tests.support.federation import host_kubectl as kubectl

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(300)]
DENIED = f"ValidatingAdmissionPolicy '{NAME}' with binding '{NAME}' denied request: "


def _policy_registered(host: client.ApiClient) -> bool:
    api = client.AdmissionregistrationV1Api(host)
    try:
        api.read_validating_admission_policy(NAME)
        api.read_validating_admission_policy_binding(NAME)
    except client.ApiException as exc:
        if exc.status == 404:
            return False
        raise
    return True


@pytest.fixture(scope="module")
def policed(federation_clusters, forwarded_kubeconfig, tmp_path_factory) -> Iterator[Path]:
    """The operator registers the policy (and the webhook) at start; then the operator stops and the webhook's
    registration goes, so only the policy is left to judge."""
    kubeconfig, _ = forwarded_kubeconfig
    host = federation_clusters["host"]
    proc = OperatorProcess(
        kubeconfig,
        tmp_path_factory.mktemp("policy"),
        "policy-op",
        f"policy-{uuid.uuid4().hex[:8]}",
        "--webhook-bind-address",
        "127.0.0.1:0",
        federation=True,
    )
    proc.start()
    try:
        wait_for(lambda: _policy_registered(host), 60, what="the policy registered by the operator")
    finally:
        proc.terminate()
        unregister_webhook(kubeconfig, keep_policy=True)
        client.CoreV1Api(host).delete_namespaced_secret(SECRET_NAME, "kube-system")
    try:
        yield kubeconfig
    finally:
        unregister_webhook(kubeconfig)  # the last test removes it itself


def refused(kubeconfig: Path, manifest: dict) -> str:
    """kubectl's error for ``manifest`` once the apiserver enforces the policy (it reads policies asynchronously,
    so a first write may still pass: it is deleted and retried)."""

    def attempt() -> str | None:
        done = kubectl(kubeconfig, "apply", "-f", "-", manifest=manifest)
        if done.returncode != 0:
            return done.stderr
        meta = manifest["metadata"]
        kubectl(kubeconfig, "delete", "pinapp", "-n", meta["namespace"], meta["name"], "--wait=false")
        return None

    return wait_for(attempt, 30, interval=0.5, what="kubectl refused")


def portal_error(manifest: dict, path: str) -> FieldError:
    """The library's own error at ``path``: what the portal says of this manifest there."""
    return next(e for e in validate(manifest) if e.path == path)


def _with_container(namespace: str, **fields: str) -> dict:
    manifest = pinapp(namespace)
    manifest["spec"]["template"]["containers"].append({"name": "second", "image": "registry.local/x:1", **fields})
    return manifest


def test_each_bad_workload_is_refused_by_the_policy_alone_with_the_portals_message(policed, project):
    ns = project()
    other = pinapp(ns, project="someone-else")
    cases = {
        "other project": (other, str(project_problems(other, {"spec": {"project": ns}})[0])),
        **{
            case: (manifest, str(portal_error(manifest, path)))
            for case, manifest, path in (
                ("long name", pinapp(ns, name="w" * 41), "metadata.name"),
                ("digit first", pinapp(ns, name="9web"), "metadata.name"),
                ("dotted name", pinapp(ns, name="web.v2"), "metadata.name"),
                ("team with a quote", pinapp(ns, team="it's"), "spec.team"),
                ("zone", pinapp(ns, zones=["local-1a", "Local 1b"]), "spec.zones[1]"),
                ("image", _with_container(ns, image="Registry/UPPER"), "spec.template.containers[1].image"),
                ("container", _with_container(ns, name="Second"), "spec.template.containers[1].name"),
                ("workdir", _with_container(ns, workingDir="srv"), "spec.template.containers[1].workingDir"),
            )
        },
    }

    said = {case: refused(policed, manifest) for case, (manifest, _) in cases.items()}

    for case, (_, message) in cases.items():
        assert DENIED + message in said[case], (case, message, said[case])


def test_a_good_workload_is_accepted_and_its_metadata_stays_editable(policed, project, federation_clusters):
    ns = project()
    refused(policed, pinapp(ns, team="not ok"))  # the policy is live

    created = kubectl(policed, "apply", "-f", "-", manifest=pinapp(ns))
    labelled = kubectl(policed, "label", "pinapp", "-n", ns, "web", "note=on-call")
    worse = kubectl(policed, "apply", "-f", "-", manifest=pinapp(ns, team="not ok"))

    assert created.returncode == 0 and "created" in created.stdout, created.stderr
    assert labelled.returncode == 0, labelled.stderr
    assert worse.returncode != 0 and DENIED + "spec.team: 'not ok' is not a valid label value" in worse.stderr
    assert get(federation_clusters["host"], "PinApp", ns, "web")["spec"]["team"] == "team"


def test_break_glass_passes_the_policy_for_the_group_only_and_the_object_stays_labelable(
    policed, project, federation_clusters
):
    ns = project()
    manifest = pinapp(ns, team="not ok")
    manifest["metadata"]["annotations"] = {BREAK_GLASS_ANNOTATION: "INC-42 restore the old team"}
    blank = pinapp(ns, team="not ok")
    blank["metadata"]["annotations"] = {BREAK_GLASS_ANNOTATION: "  "}
    refused(policed, pinapp(ns, team="not ok"))  # the policy is live
    as_admin = ("--as", "ops", "--as-group", "system:masters")
    glass = (*as_admin, "--as-group", BREAK_GLASS_GROUP)

    without_group = kubectl(policed, "apply", *as_admin, "-f", "-", manifest=manifest)
    without_reason = kubectl(policed, "apply", *glass, "-f", "-", manifest=blank)
    broken = kubectl(policed, "apply", *glass, "-f", "-", manifest=manifest)
    labelled = kubectl(policed, "label", "pinapp", "-n", ns, "web", "note=on-call")

    assert without_group.returncode != 0 and DENIED in without_group.stderr
    assert without_reason.returncode != 0 and DENIED in without_reason.stderr
    assert broken.returncode == 0, broken.stderr
    assert labelled.returncode == 0, labelled.stderr
    assert get(federation_clusters["host"], "PinApp", ns, "web")["spec"]["team"] == "not ok"


def test_remove_webhook_removes_the_policy_and_its_binding(policed, project, federation_clusters):
    """Last in the module."""
    ns = project()
    refused(policed, pinapp(ns, team="not ok"))  # the policy is live

    removed = remove_webhook(policed)

    assert removed.returncode == 0, removed.stderr
    assert not _policy_registered(federation_clusters["host"])
    applied = wait_for(
        lambda: (r := kubectl(policed, "apply", "-f", "-", manifest=pinapp(ns, team="not ok"))).returncode == 0 and r,
        30,
        interval=0.5,
        what="writes accepted once the policy is gone",
    )
    assert "created" in applied.stdout
