"""``kubectl apply`` on the host meets the portal's checks: the operator's admission webhook refuses each bad
workload with the portal's field paths and messages, lets a platform admin's break-glass write through with a
warning, and (failure policy ``Fail``) refuses writes while no replica answers. (The ValidatingAdmissionPolicy the
operator registers beside it is removed first, so every refusal here is the webhook's: test_host_admission_policy.py
tests the policy alone.)

Run alone: .venv/bin/pytest tests/pincompute/operator/federation/test_host_admission_webhook.py -n 0
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes import client

from devtools.operator_process import OperatorProcess, unregister_policy, unregister_webhook
from devtools.waiting import wait_for
from pincompute.configs import manifest as config_manifest
from pincompute.federation.admission import claim_of
from pincompute.federation.host_review import never_fits
from pincompute.grants import Allocation
from pincompute.operator.webhook.registration import NAME, WEBHOOK
from pincompute.operator.webhook.tls import SECRET_NAME
from pincompute.podsecurity import pod_security_violations
from pincompute.policy import parse_policy, policy_violations
from pincompute.quantity import Resources
from pincompute.runtime import load_profile
from pincompute.specs import parse
from pincompute.tenancy import PodSecurity, Tenant, host_manifests
from pincompute.tiers import Tier
from tests.support.federation import apply_all, get, pinapp, remove_webhook
from tests.support.federation import host_kubectl as kubectl

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(300)]
DENIED = "The request is invalid: "  # kubectl's words for the webhook's 422, each field's message after them
POLICY_DENIED = "ValidatingAdmissionPolicy 'pincompute-host-admission'"  # and for the policy's refusal
PROFILE = load_profile()


@pytest.fixture(scope="module")
def guarded(federation_clusters, forwarded_kubeconfig, tmp_path_factory) -> Iterator[tuple[Path, OperatorProcess]]:
    """The federation's operator serving the webhook on 127.0.0.1 and registering it on the host; afterwards the
    configuration and its certificate are removed (a dead webhook with ``Fail`` would refuse every later write)."""
    kubeconfig, _ = forwarded_kubeconfig
    proc = OperatorProcess(
        kubeconfig,
        tmp_path_factory.mktemp("webhook"),
        "webhook-op",
        f"webhook-{uuid.uuid4().hex[:8]}",
        "--webhook-bind-address",
        "127.0.0.1:0",
        federation=True,
    )
    proc.start()
    host = federation_clusters["host"]
    try:
        wait_for(lambda: _registered(host), 60, what="the webhook registered")
        unregister_policy(kubeconfig)  # registered before it: these refusals are the webhook's alone
        yield kubeconfig, proc
    finally:
        if proc.proc is not None and proc.proc.poll() is None:
            proc.terminate()
        unregister_webhook(kubeconfig)  # the last test removes it itself
        client.CoreV1Api(host).delete_namespaced_secret(SECRET_NAME, "kube-system")


def _registered(host: client.ApiClient) -> bool:
    try:
        client.AdmissionregistrationV1Api(host).read_validating_webhook_configuration(NAME)
    except client.ApiException as exc:
        if exc.status == 404:
            return False
        raise
    return True


def refused(kubeconfig: Path, manifest: dict) -> str:
    """kubectl's error for ``manifest`` once the apiserver sends writes to the webhook (it reads the configuration
    asynchronously, so the first writes after registering may still pass: those are deleted and retried)."""

    def attempt() -> str | None:
        done = kubectl(kubeconfig, "apply", "-f", "-", manifest=manifest)
        if done.returncode != 0:
            return done.stderr
        meta = manifest["metadata"]
        kubectl(kubeconfig, "delete", "pinapp", "-n", meta["namespace"], meta["name"], "--wait=false")
        return None

    return wait_for(attempt, 30, interval=0.5, what="kubectl refused")


def privileged(namespace: str) -> dict:
    manifest = pinapp(namespace)
    manifest["spec"]["template"]["containers"][0]["securityContext"] = {"privileged": True}
    return manifest


def test_each_bad_workload_is_refused_by_kubectl_with_the_portals_message(guarded, project, federation_clusters):
    kubeconfig, _ = guarded
    ns = project(cpu="2", memory="4Gi")
    host = federation_clusters["host"]
    huge = pinapp(ns, replicas=40)
    cases = {
        "other project": (pinapp(ns, project="someone-else"), "spec.project: names project 'someone-else'"),
        "privileged": (
            privileged(ns),
            str(pod_security_violations(privileged(ns), PodSecurity.BASELINE, PROFILE)[0]),
        ),
        "unknown zone": (
            pinapp(ns, zones=["local-1a", "mars-1a"]),
            "spec.zones[1]: no member cluster serves zone 'mars-1a' (zones served: local-1a, local-1b",  # others
        ),
        "never fits": (
            huge,
            str(never_fits(Tier.ONDEMAND, Allocation.of(Resources(2000, 4 << 30), 0), _request(huge))[0]),
        ),
        "invalid": (pinapp(ns, zones=["local-1a", "local-1a"]), "spec.zones[1]: zone 'local-1a' is listed twice"),
    }

    said = {case: refused(kubeconfig, manifest) for case, (manifest, _) in cases.items()}

    for case, (_, message) in cases.items():
        # The project check is also the host's ValidatingAdmissionPolicy's (the operator registers both): once the
        # apiserver has loaded the policy, it refuses first, with the same sentence.
        by = (DENIED, POLICY_DENIED) if case == "other project" else (DENIED,)
        assert any(words in said[case] for words in by), (case, said[case])
        assert message in said[case], (case, said[case])
    assert get(host, "PinApp", ns, "web") is None
    nowhere = kubectl(kubeconfig, "apply", "-f", "-", manifest=pinapp("default"))
    assert nowhere.returncode != 0 and "namespace default has no ProjectQuota" in nowhere.stderr


def _request(manifest: dict) -> Allocation:
    from datetime import UTC, datetime

    return claim_of(parse(manifest), datetime.now(UTC), profile=PROFILE).request


def test_a_good_workload_applies_unchanged_reapplies_pass_and_a_bad_edit_is_refused(guarded, project):
    kubeconfig, _ = guarded
    ns = project(cpu="4", memory="8Gi")
    good = pinapp(ns)
    refused(kubeconfig, privileged(ns))  # the webhook is live

    created = kubectl(kubeconfig, "apply", "-f", "-", manifest=good)
    again = kubectl(kubeconfig, "apply", "-f", "-", manifest=good)
    labelled = kubectl(kubeconfig, "label", "pinapp", "-n", ns, "web", "team-note=on-call")
    worse = kubectl(kubeconfig, "apply", "-f", "-", manifest=privileged(ns))
    dry = kubectl(kubeconfig, "apply", "--dry-run=server", "-f", "-", manifest=pinapp(ns, zones=["mars-1a"]))

    assert created.returncode == 0 and "created" in created.stdout, created.stderr
    assert again.returncode == 0 and "unchanged" in again.stdout, again.stderr
    assert labelled.returncode == 0, labelled.stderr
    assert worse.returncode != 0 and DENIED in worse.stderr and "privileged" in worse.stderr
    assert dry.returncode != 0 and "no member cluster serves zone 'mars-1a'" in dry.stderr


def test_break_glass_lets_a_platform_admin_through_with_a_warning_and_nobody_else(
    guarded, project, federation_clusters
):
    kubeconfig, _ = guarded
    ns = project(cpu="4", memory="8Gi")
    manifest = privileged(ns)
    manifest["metadata"]["annotations"] = {"pincompute.io/break-glass": "INC-42 debug the node agent"}
    refused(kubeconfig, privileged(ns))  # the webhook is live
    as_admin = ("--as", "ops", "--as-group", "system:masters")

    without_group = kubectl(kubeconfig, "apply", *as_admin, "-f", "-", manifest=manifest)
    broken = kubectl(
        kubeconfig, "apply", *as_admin, "--as-group", "pincompute:break-glass", "-f", "-", manifest=manifest
    )

    assert without_group.returncode != 0 and DENIED in without_group.stderr
    assert broken.returncode == 0, broken.stderr
    assert "break-glass: the platform's checks were skipped for this write (INC-42 debug the node agent)" in (
        broken.stderr
    )
    assert get(federation_clusters["host"], "PinApp", ns, "web") is not None


def test_the_projects_policy_on_its_host_namespace_refuses_kubectl_naming_field_and_rule(
    guarded, project, federation_clusters
):
    """The namespace as provisioning writes it for a project under a policy (``host_manifests``: its annotation):
    kubectl meets ``pincompute.policy``'s refusals, the portal's own words."""
    kubeconfig, _ = guarded
    ns = project(cpu="16", memory="32Gi")  # room for it: only the policy refuses
    policy = parse_policy({"imageRegistries": ["registry.local/search"], "maxPerContainer": {"cpu": "1"}})
    host = federation_clusters["host"]
    apply_all(host, host_manifests(Tenant(ns, ns, "team", "CC-1", policy=policy))[:1])
    foreign = pinapp(ns)
    foreign["spec"]["template"]["containers"][0].update(
        image="quay.io/search/web:1", resources={"limits": {"cpu": "2"}}
    )
    refused(kubeconfig, privileged(ns))  # the webhook is live

    said = refused(kubeconfig, foreign)
    allowed = kubectl(kubeconfig, "apply", "-f", "-", manifest=pinapp(ns))

    assert DENIED in said, said
    for error in policy_violations(policy, foreign):
        assert str(error) in said, said
    assert "spec.template.containers[0].image: registry quay.io is not in this project's allowlist" in said
    assert allowed.returncode == 0, allowed.stderr


def test_a_secret_the_project_does_not_hold_is_refused_by_kubectl_at_its_field(guarded, project, federation_clusters):
    """A workload written with kubectl may use only the project's own Secrets and keys (those the portal made, which
    the federation copies to the members): a member's own Secret, an unlabelled one or a missing key is refused."""
    kubeconfig, _ = guarded
    ns = project(cpu="4", memory="8Gi")
    host = federation_clusters["host"]
    core = client.CoreV1Api(host)
    held = config_manifest("Secret", project=ns, namespace=ns, name="db", data={"password": "x"}, version=1, actor="a")
    core.create_namespaced_secret(ns, held)
    core.create_namespaced_secret(ns, {"metadata": {"name": "stray"}, "stringData": {"password": "x"}})
    refused(kubeconfig, privileged(ns))  # the webhook is live
    field = "spec.template.containers[0].env[0].valueFrom.secretKeyRef"

    stray = refused(kubeconfig, using_secret(ns, "stray", "password"))
    no_key = refused(kubeconfig, using_secret(ns, "db", "user"))
    good = kubectl(kubeconfig, "apply", "-f", "-", manifest=using_secret(ns, "db", "password"))

    assert DENIED in stray and f"{field}.name: the project has no Secret named 'stray'" in stray, stray
    assert f"{field}.key: Secret 'db' has no key 'user'" in no_key, no_key
    assert good.returncode == 0, good.stderr


def using_secret(namespace: str, name: str, key: str) -> dict:
    manifest = pinapp(namespace)
    env = [{"name": "DB", "valueFrom": {"secretKeyRef": {"name": name, "key": key}}}]
    manifest["spec"]["template"]["containers"][0]["env"] = env
    return manifest


def test_with_no_replica_answering_writes_are_refused_until_the_registration_is_removed(guarded, project):
    """Last in the module: it stops the webhook's only replica, then removes the registration as an admin does
    after uninstalling (``remove-webhook``)."""
    kubeconfig, proc = guarded
    ns = project(cpu="4", memory="8Gi")
    refused(kubeconfig, privileged(ns))  # the webhook is live
    proc.kill()

    done = kubectl(kubeconfig, "apply", "-f", "-", manifest=pinapp(ns))
    removed = remove_webhook(kubeconfig)

    assert done.returncode != 0 and f'failed calling webhook "{WEBHOOK}"' in done.stderr, done.stderr
    assert removed.returncode == 0, removed.stderr
    applied = wait_for(
        lambda: (r := kubectl(kubeconfig, "apply", "-f", "-", manifest=pinapp(ns))).returncode == 0 and r,
        30,
        interval=0.5,
        what="writes accepted once the registration is gone",
    )
    assert "created" in applied.stdout
