"""The project policy (``pincompute.policy``): its strict document, and the one function the portal's submission and
the host's admission judge a workload by, every refusal naming the field and the rule."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pincompute.errors import SpecInvalid
from pincompute.federation.host_review import PROJECT_POLICY, Surroundings, review
from pincompute.grants import Allocation
from pincompute.kinds import KINDS
from pincompute.policy import (
    OPEN,
    ProjectPolicy,
    annotation_value,
    image_repository,
    parse_annotation,
    parse_policy,
    policy_document,
    policy_violations,
    registry_allowed,
    sidecar_exec_refusal,
)
from pincompute.quantity import Resources
from pincompute.runtime import load_profile
from pincompute.specs import validate
from pincompute.tenancy import PodSecurity, Tenant, host_manifests, project_quota_manifest
from pincompute.tiers import Tier
from tests.support.examples import example

STRICT = parse_policy(
    {
        "allowedKinds": ["PinApp", "PinPod"],
        "allowedTiers": ["OnDemand"],
        "imageRegistries": ["docker.io", "ghcr.io/acme"],
        "maxPerContainer": {"cpu": "2", "memory": "4Gi", "gpu": 1},
        "sidecarExec": False,
        "notifyOnShell": True,
    }
)


def app(image: str = "nginx:1.27", **resources: dict) -> dict:
    document = example("PinApp")
    container = document["spec"]["template"]["containers"][0]
    document["spec"]["tier"] = "OnDemand"
    container["image"] = image
    if resources:
        container["resources"] = resources
    return document


def test_the_open_policy_allows_every_example_of_every_kind():
    for kind in KINDS:
        assert policy_violations(OPEN, example(kind)) == [], kind


def test_a_kind_outside_the_list_is_refused_naming_the_rule():
    errors = policy_violations(STRICT, example("PinterestDaemon"))

    assert errors[0].path == "kind"
    assert errors[0].message.endswith("(policy: allowed kinds)")
    assert "PinterestDaemon is not allowed" in errors[0].message


def test_a_tier_outside_the_list_is_refused_and_an_unset_tier_is_the_kinds_default():
    reserved = app()
    reserved["spec"]["tier"] = "Reserved"
    unset = app()
    unset["spec"].pop("tier", None)
    only_preemptible = ProjectPolicy(tiers=frozenset({Tier.PREEMPTIBLE}))

    assert [str(e) for e in policy_violations(STRICT, reserved)] == [
        "spec.tier: tier Reserved is not allowed in this project (allowed: OnDemand) (policy: allowed tiers)"
    ]
    assert [e.path for e in policy_violations(only_preemptible, unset)] == ["spec.tier"]


def test_an_image_from_another_registry_is_refused_with_its_path_and_registry():
    errors = policy_violations(STRICT, app("quay.io/acme/api:2"))

    assert [str(e) for e in errors] == [
        "spec.template.containers[0].image: registry quay.io is not in this project's allowlist "
        "(docker.io, ghcr.io/acme) (policy: image registries)"
    ]


@pytest.mark.parametrize(
    ("image", "repository"),
    [
        ("nginx", "docker.io/library/nginx"),
        ("nginx:1.27", "docker.io/library/nginx"),
        ("acme/api@sha256:" + "a" * 64, "docker.io/acme/api"),
        ("index.docker.io/acme/api:1", "docker.io/acme/api"),
        ("localhost/api", "localhost/api"),
        ("registry.example.com:5000/team/api:3", "registry.example.com:5000/team/api"),
        ("GHCR.io/acme/app", "ghcr.io/acme/app"),
    ],
)
def test_an_image_resolves_to_the_registry_the_runtime_pulls_from(image, repository):
    assert image_repository(image) == repository


def test_a_path_prefix_allows_its_repositories_and_not_a_longer_name():
    assert registry_allowed("ghcr.io/acme/app:1", ("ghcr.io/acme",))
    assert not registry_allowed("ghcr.io/acmecorp/app:1", ("ghcr.io/acme",))
    assert registry_allowed("busybox", ("docker.io",))
    assert not registry_allowed("quay.io/busybox", ("docker.io",))


def test_requests_and_limits_beyond_the_maximum_are_refused_each_by_its_path():
    document = app(requests={"cpu": "3", "memory": "1Gi"}, limits={"cpu": "3", "memory": "5Gi"})

    errors = policy_violations(STRICT, document)

    base = "spec.template.containers[0].resources"
    assert [e.path for e in errors] == [f"{base}.requests.cpu", f"{base}.limits.cpu", f"{base}.limits.memory"]
    assert (
        errors[0].message == "3 cpu is more than this project's maximum of 2 per container (policy: max "
        "resources per container)"
    )


def test_sidecars_and_every_kinds_containers_are_judged_in_their_own_paths():
    document = example("PinPod")
    document["spec"]["sidecars"] = [{"name": "proxy", "image": "quay.io/proxy:1"}]
    registries = ProjectPolicy(registries=("registry.local",))

    assert [e.path for e in policy_violations(registries, document)] == ["spec.sidecars[0].image"]
    for kind in KINDS:
        runs_pods = KINDS[kind].runs_pods
        refused = policy_violations(ProjectPolicy(registries=()), example(kind))
        assert bool(refused) == runs_pods, kind


def test_gpus_per_worker_counts_as_the_first_containers_gpus():
    job = example("PinterestTrainingJob")
    job["spec"]["gpusPerWorker"] = 4

    assert "spec.gpusPerWorker" in [e.path for e in policy_violations(STRICT, job)]


def test_the_document_round_trips_and_the_annotation_is_stable():
    assert parse_policy(policy_document(STRICT)) == STRICT
    assert parse_annotation(annotation_value(STRICT)) == STRICT
    assert parse_annotation(None) == OPEN
    assert policy_document(OPEN)["allowedKinds"] is None


@pytest.mark.parametrize(
    ("document", "path"),
    [
        ([], ""),
        ({"allowedKind": []}, "allowedKind"),
        ({"allowedKinds": ["Deployment"]}, "allowedKinds[0]"),
        ({"allowedTiers": "OnDemand"}, "allowedTiers"),
        ({"imageRegistries": ["https://quay.io"]}, "imageRegistries[0]"),
        ({"maxPerContainer": {"cpu": "lots"}}, "maxPerContainer.cpu"),
        ({"maxPerContainer": {"disk": "1Gi"}}, "maxPerContainer.disk"),
        ({"maxPerContainer": {"gpu": "0.5"}}, "maxPerContainer.gpu"),
        ({"sidecarExec": "no"}, "sidecarExec"),
    ],
)
def test_a_bad_document_is_refused_naming_the_field(document, path):
    with pytest.raises(SpecInvalid) as refused:
        parse_policy(document)

    assert path in [e.path for e in refused.value.fields]


def test_a_malformed_annotation_is_refused_not_read_as_open():
    with pytest.raises(SpecInvalid):
        parse_annotation("{not json")


def test_sidecar_exec_names_its_rule_only_when_forbidden():
    assert sidecar_exec_refusal(OPEN, "ads") == ""
    assert sidecar_exec_refusal(STRICT, "ads").endswith("(policy: sidecar exec)")


def test_the_host_namespace_carries_the_policy_and_the_host_review_refuses_by_it():
    tenant = Tenant(
        "search",
        "proj-search",
        "team",
        "CC-1",
        policy=STRICT,
        grants={Tier.ONDEMAND: Allocation.of(Resources(8000, 32 << 30), 0)},
    )
    namespace = host_manifests(tenant)[0]
    policy = parse_annotation(namespace["metadata"]["annotations"]["pincompute.io/policy"])
    document = app("quay.io/acme/api:2")
    document["spec"].update(project="search", tier="OnDemand")
    document["metadata"]["namespace"] = "proj-search"
    around = Surroundings(project_quota_manifest(tenant), PodSecurity.BASELINE, frozenset(), policy)

    problems = review(document, around, load_profile(), datetime(2026, 11, 28, tzinfo=UTC))

    assert problems.reason == PROJECT_POLICY
    assert [e.path for e in problems.errors] == ["spec.template.containers[0].image"]


_registry = st.from_regex(r"[a-z][a-z0-9]{0,8}\.(io|com)", fullmatch=True)
_path = st.from_regex(r"[a-z][a-z0-9]{0,8}(/[a-z][a-z0-9]{0,8}){0,2}", fullmatch=True)


@given(registry=_registry, path=_path, tag=st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True))
def test_an_image_is_allowed_by_its_own_registry_and_refused_by_any_other(registry, path, tag):
    image = f"{registry}/{path}:{tag}"

    assert registry_allowed(image, (registry,))
    assert registry_allowed(image, (f"{registry}/{path}",))
    assert not registry_allowed(image, (f"x{registry}",))


@given(cpu=st.integers(min_value=1, max_value=64_000), cap=st.integers(min_value=0, max_value=64_000))
def test_a_cpu_request_is_refused_exactly_when_it_passes_the_cap(cpu, cap):
    document = app(requests={"cpu": f"{cpu}m"})
    assert not validate(document)

    refused = policy_violations(ProjectPolicy(max_per_container={"cpu": cap}), document)

    assert bool(refused) == (cpu > cap)
