"""What the host's admission webhook refuses (``host_review``) and how it answers an AdmissionReview
(``operator.webhook.review``): the portal's checks and wording, from what the host holds."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from pincompute.errors import NotFound
from pincompute.federation.host_checks import INVALID_SPEC, PROJECT_MISMATCH
from pincompute.federation.host_review import (
    NEVER_FITS,
    NOT_A_PROJECT,
    POD_SECURITY,
    UNKNOWN_CONFIG,
    UNKNOWN_ZONE,
    Surroundings,
    enforced_level,
    member_zones,
    never_fits,
    review,
)
from pincompute.grants import Allocation
from pincompute.operator.webhook.review import AUDIT_KEY, admission_review, answer
from pincompute.podsecurity import pod_security_violations
from pincompute.quantity import Resources
from pincompute.runtime import load_profile
from pincompute.tenancy import PodSecurity, Tenant, pod_security_labels, project_quota_manifest
from pincompute.tiers import Tier
from tests.support.examples import example

PROFILE = load_profile()
NOW = datetime(2026, 11, 27, tzinfo=UTC)
QUOTA = project_quota_manifest(
    Tenant("search", "proj-search", "team", "CC-1", grants={Tier.ONDEMAND: Allocation.of(Resources(8000, 32 << 30), 0)})
)
AROUND = Surroundings(QUOTA, PodSecurity.BASELINE, frozenset({"us-east-1a", "us-east-1b"}))


def app(**spec: object) -> dict:
    document = example("PinApp")
    document["spec"].update(project="search", tier="OnDemand")
    document["metadata"]["namespace"] = "proj-search"
    document["spec"].update(spec)
    return document


def privileged() -> dict:
    document = app()
    document["spec"]["template"]["containers"][0]["securityContext"] = {"privileged": True}
    return document


def test_a_good_workload_has_nothing_against_it():
    assert not review(app(), AROUND, PROFILE, NOW)


@pytest.mark.parametrize(
    ("document", "around", "reason", "path"),
    [
        (app(), Surroundings(None, None, frozenset()), NOT_A_PROJECT, "metadata.namespace"),
        (app(project="ads"), AROUND, PROJECT_MISMATCH, "spec.project"),
        (app(replicas=-1), AROUND, INVALID_SPEC, "spec.replicas"),
        (privileged(), AROUND, POD_SECURITY, "spec.template.containers[0].securityContext.privileged"),
        (app(zones=["us-east-1a", "us-east-1b", "mars-1"]), AROUND, UNKNOWN_ZONE, "spec.zones[2]"),
        (app(replicas=100), AROUND, NEVER_FITS, "OnDemand.cpu"),
    ],
    ids=["not-a-project", "other-project", "invalid", "privileged", "unknown-zone", "never-fits"],
)
def test_each_check_refuses_with_the_field_a_person_fixes(document, around, reason, path):
    problems = review(document, around, PROFILE, NOW)

    assert problems.reason == reason
    assert path in [e.path for e in problems.errors], problems.errors


def test_the_wording_is_the_portals_own():
    pod_security = review(privileged(), AROUND, PROFILE, NOW)
    grown = app(replicas=100)
    beyond = review(grown, AROUND, PROFILE, NOW)

    assert list(pod_security.errors) == pod_security_violations(privileged(), PodSecurity.BASELINE, PROFILE)
    (cpu,) = [e for e in beyond.errors if e.path == "OnDemand.cpu"]
    assert cpu.message.startswith("OnDemand cpu: it alone requests ")
    assert cpu.message.endswith("more than the project's whole grant of 8")


def test_unlabelled_namespaces_and_hosts_without_members_skip_those_checks():
    around = Surroundings(QUOTA, None, frozenset())

    assert not review(privileged(), around, PROFILE, NOW)
    assert not review(app(zones=["us-east-1a", "us-east-1b", "mars-1"]), around, PROFILE, NOW)


def test_levels_and_zones_are_read_as_provisioning_writes_them():
    assert enforced_level(pod_security_labels(PodSecurity.RESTRICTED)) is PodSecurity.RESTRICTED
    assert enforced_level({"pod-security.kubernetes.io/enforce": "bogus"}) is None
    assert enforced_level(None) is None
    assert member_zones([{"spec": {"zone": "a"}}, {"spec": {}}, {}]) == frozenset({"a"})
    assert (
        never_fits(Tier.ONDEMAND, Allocation.of(Resources(1000, 1 << 30), 0), Allocation.of(Resources(500, 0), 0)) == []
    )


def request(operation: str, obj: dict, *, old: dict | None = None, groups: tuple[str, ...] = ()) -> dict:
    return {
        "uid": "u-1",
        "operation": operation,
        "namespace": "proj-search",
        "object": obj,
        "oldObject": old,
        "userInfo": {"username": "ops", "groups": list(groups)},
    }


def test_a_refusal_is_a_422_with_every_field_as_a_cause():
    review_body = {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": request("CREATE", privileged()),
    }

    out = admission_review(review_body, lambda _ns, _kinds: AROUND, PROFILE)

    response = out["response"]
    assert response["uid"] == "u-1" and response["allowed"] is False
    status = response["status"]
    assert status["code"] == 422 and status["reason"] == "Invalid"
    assert status["message"].startswith(f"PinApp {privileged()['metadata']['name']} refused (PodSecurity): ")
    causes = status["details"]["causes"]
    assert {"field": "spec.template.containers[0].securityContext.privileged"}.items() <= causes[0].items()


def test_updates_that_keep_the_spec_deletions_and_break_glass_pass_unjudged():
    bad = privileged()
    relabelled = {**bad, "metadata": {**bad["metadata"], "labels": {"x": "y"}}}
    deleting = {**bad, "metadata": {**bad["metadata"], "deletionTimestamp": "2026-11-27T00:00:00Z"}}
    glass = {**bad, "metadata": {**bad["metadata"], "annotations": {"pincompute.io/break-glass": "incident 42"}}}

    def unreadable(_ns: str, _kinds: frozenset) -> Surroundings:
        raise NotFound("no namespace")

    assert answer(request("UPDATE", relabelled, old=bad), unreadable, PROFILE).allowed
    assert answer(request("UPDATE", deleting, old=app()), unreadable, PROFILE).allowed
    assert answer(request("DELETE", bad), unreadable, PROFILE).allowed
    broken = answer(request("CREATE", glass, groups=("pincompute:break-glass",)), unreadable, PROFILE)
    assert broken.allowed and "incident 42" in broken.warnings[0]
    assert "ops wrote PinApp proj-search/" in broken.audit[AUDIT_KEY]
    assert not answer(request("CREATE", glass), lambda _ns, _kinds: AROUND, PROFILE).allowed  # the annotation alone: no
    failed = answer(request("CREATE", app()), unreadable, PROFILE)
    assert not failed.allowed and "could not read what the host holds" in failed.message


def using_a_secret(name: str = "db", key: str = "password") -> dict:
    document = app()
    env = [{"name": "DB", "valueFrom": {"secretKeyRef": {"name": name, "key": key}}}]
    document["spec"]["template"]["containers"][0]["env"] = env
    return document


def test_a_secret_or_key_the_project_does_not_hold_is_refused_at_its_field():
    """kubectl meets the portal's check: the federation would have nothing to copy to the members."""
    held = dataclasses.replace(AROUND, configs={("Secret", "db"): frozenset({"password"})})
    field = "spec.template.containers[0].env[0].valueFrom.secretKeyRef"

    unknown = review(using_a_secret(name="other"), held, PROFILE, NOW)
    no_key = review(using_a_secret(key="user"), held, PROFILE, NOW)

    assert not review(using_a_secret(), held, PROFILE, NOW)
    assert unknown.reason == UNKNOWN_CONFIG and unknown.errors[0].path == f"{field}.name"
    assert "the project has no Secret named 'other'" in unknown.errors[0].message
    assert no_key.reason == UNKNOWN_CONFIG and no_key.errors[0].path == f"{field}.key"


def test_the_webhook_reads_the_projects_configs_only_of_the_kinds_a_write_uses():
    asked: list[frozenset] = []

    def around(_ns: str, kinds: frozenset) -> Surroundings:
        asked.append(kinds)
        return dataclasses.replace(AROUND, configs={} if kinds else None)

    allowed = answer(request("CREATE", app()), around, PROFILE)
    refused = answer(request("CREATE", using_a_secret()), around, PROFILE)

    assert allowed.allowed
    assert not refused.allowed and refused.reason == UNKNOWN_CONFIG
    assert asked == [frozenset(), frozenset({"Secret"})]
