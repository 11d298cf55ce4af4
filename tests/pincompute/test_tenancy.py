"""What a cluster holds for a project (pincompute.tenancy, rbac) and the ProjectQuota platform kind."""

import dataclasses

import pytest

from clusters.kube.resources import PINCOMPUTE_PLURALS
from pincompute.crds import crd_manifests, platform_crd_manifests, structural_problems
from pincompute.federation_rights import BINDING_NAME, PORTAL_BINDING_NAME, right_of
from pincompute.grants import Allocation
from pincompute.kinds import KINDS, PLATFORM_KINDS, PROJECT_QUOTA, InstalledOn
from pincompute.labels import COST_CENTER_LABEL, POD_SECURITY_ENFORCE_LABEL, PROJECT_LABEL
from pincompute.rbac import ProjectRole, Subject, cluster_role_manifests, role_rules
from pincompute.tenancy import (
    NO_POD_CAP,
    PROJECT_QUOTA_SPEC,
    PodSecurity,
    Tenant,
    grants_of_quota,
    host_manifests,
    label_value,
    member_manifests,
    project_quota_manifest,
)
from pincompute.tiers import Tier
from workloads.catalog import CATALOG

GIB = 2**30
ADS = Tenant(
    name="ads",
    namespace="proj-ads",
    team="Ads Ranking",
    cost_center="CC 1042",
    subjects={
        ProjectRole.OWNER: (Subject("User", "alice"),),
        ProjectRole.DEVELOPER: (Subject("Group", "ads-devs"), Subject("User", "bob")),
    },
    grants={Tier.RESERVED: Allocation(4000, 16 * GIB, 1, pods=20), Tier.ONDEMAND: Allocation(2000, GIB)},
)


def test_a_member_gets_the_namespace_roles_rolebindings_tier_quotas_limits_and_network_policies_in_that_order():
    manifests = member_manifests(ADS)

    assert [(m["kind"], m["metadata"]["name"]) for m in manifests] == [
        ("Namespace", "proj-ads"),
        ("ClusterRole", "pincompute-project-owner"),
        ("ClusterRole", "pincompute-project-developer"),
        ("ClusterRole", "pincompute-project-viewer"),
        ("RoleBinding", "pincompute-project-owner"),
        ("RoleBinding", "pincompute-project-developer"),
        ("RoleBinding", "pincompute-project-viewer"),
        ("ResourceQuota", "pincompute-reserved"),
        ("ResourceQuota", "pincompute-ondemand"),
        ("ResourceQuota", "pincompute-preemptible"),
        ("LimitRange", "pincompute-defaults"),
        ("NetworkPolicy", "pincompute-isolation"),
        ("NetworkPolicy", "pincompute-openings"),
    ]
    assert all(m["metadata"].get("namespace") == "proj-ads" for m in manifests[4:])
    assert manifests[1:4] == cluster_role_manifests()  # every pass re-applies the rules the bindings refer to


def test_the_namespace_carries_identity_and_pod_security_labels_at_the_project_level():
    labels = member_manifests(Tenant("ml", "proj-ml", "ml", "CC-2", pod_security=PodSecurity.RESTRICTED))[0]
    default = member_manifests(ADS)[0]["metadata"]["labels"]

    assert default[PROJECT_LABEL] == "ads"
    assert default["pincompute.io/team"] == "Ads-Ranking"
    assert default[COST_CENTER_LABEL] == "CC-1042"
    assert default["app.kubernetes.io/managed-by"] == "pincompute"
    assert {k: v for k, v in default.items() if k.startswith("pod-security")} == {
        "pod-security.kubernetes.io/enforce": "baseline",
        "pod-security.kubernetes.io/enforce-version": "latest",
        "pod-security.kubernetes.io/audit": "baseline",
        "pod-security.kubernetes.io/warn": "baseline",
    }
    assert labels["metadata"]["labels"][POD_SECURITY_ENFORCE_LABEL] == "restricted"


def test_each_role_binds_its_users_and_groups_sorted_and_an_empty_role_binds_nobody():
    bindings = {m["metadata"]["name"]: m for m in member_manifests(ADS) if m["kind"] == "RoleBinding"}

    developer = bindings["pincompute-project-developer"]
    assert developer["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "pincompute-project-developer",
    }
    assert [(s["kind"], s["name"]) for s in developer["subjects"]] == [("Group", "ads-devs"), ("User", "bob")]
    assert bindings["pincompute-project-owner"]["subjects"][0]["apiGroup"] == "rbac.authorization.k8s.io"
    assert bindings["pincompute-project-viewer"]["subjects"] == []


def test_tier_quotas_carry_the_regional_grant_scoped_by_priority_class_and_zero_without_a_grant():
    quotas = {m["metadata"]["name"]: m["spec"] for m in member_manifests(ADS) if m["kind"] == "ResourceQuota"}

    assert quotas["pincompute-reserved"]["hard"] == {
        "requests.cpu": "4",
        "requests.memory": "16Gi",
        "requests.nvidia.com/gpu": "1",
        "pods": "20",
    }
    assert quotas["pincompute-reserved"]["scopeSelector"]["matchExpressions"] == [
        {"scopeName": "PriorityClass", "operator": "In", "values": ["pincompute-reserved"]}
    ]
    assert "pods" not in quotas["pincompute-ondemand"]["hard"]  # a pod count of 0 is no cap on the backstop
    assert quotas["pincompute-preemptible"]["hard"]["requests.cpu"] == "0"


def test_the_host_gets_the_namespace_and_a_project_quota_with_every_tier_spelled_out():
    namespace, quota = host_manifests(ADS)

    assert namespace["kind"] == "Namespace" and namespace["metadata"]["name"] == "proj-ads"
    assert quota["apiVersion"] == "pincompute.io/v1" and quota["kind"] == "ProjectQuota"
    assert quota["metadata"]["name"] == "ads" and quota["metadata"]["namespace"] == "proj-ads"
    assert quota["spec"] == {
        "project": "ads",
        "tiers": {
            "Reserved": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1", "pods": 20},
            "OnDemand": {"cpu": "2", "memory": "1Gi", "nvidia.com/gpu": "0", "pods": 0},
            "Preemptible": {"cpu": "0", "memory": "0", "nvidia.com/gpu": "0", "pods": 0},
        },
    }


def test_the_project_quota_passes_its_own_schema():
    errors = []
    PROJECT_QUOTA_SPEC.check(project_quota_manifest(ADS)["spec"], "spec", errors)
    PROJECT_QUOTA_SPEC.check({"tiers": {"Gold": {}}}, "spec", errors)

    assert sorted(e.path for e in errors) == ["spec.project", "spec.tiers.Gold"]


def test_the_host_only_crds_are_structural_the_quota_namespaced_the_member_cluster_cluster_scoped():
    crd, members = platform_crd_manifests(InstalledOn.HOST)

    assert platform_crd_manifests(InstalledOn.MEMBER) == []
    assert crd["metadata"]["name"] == "projectquotas.pincompute.io"
    assert crd["spec"]["scope"] == "Namespaced"
    assert crd["spec"]["names"]["kind"] == "ProjectQuota"
    assert members["metadata"]["name"] == "memberclusters.pincompute.io"
    assert members["spec"]["scope"] == "Cluster"
    for manifest in (crd, members):
        version = manifest["spec"]["versions"][0]
        assert version["subresources"] == {"status": {}}
        assert structural_problems(version["schema"]["openAPIV3Schema"]) == []


def test_grants_read_back_from_the_project_quota_object_are_the_grants_written():
    quota = project_quota_manifest(ADS)
    grants = grants_of_quota(quota)

    for tier in Tier:
        written = ADS.grant(tier)
        assert grants[tier].resources == written.resources
        assert grants[tier].pods == (written.pods or NO_POD_CAP)
    assert all(g == Allocation() for g in grants_of_quota(None).values())  # no quota object: nothing granted


def test_platform_kinds_are_no_workloads():
    assert PROJECT_QUOTA.kind in PLATFORM_KINDS and PROJECT_QUOTA.kind not in KINDS
    assert len(KINDS) == 8 and len(crd_manifests()) == 8
    assert PROJECT_QUOTA.kind not in {entry.kind for entry in CATALOG}
    assert PROJECT_QUOTA.plural not in PINCOMPUTE_PLURALS  # the portal's workload watches
    assert not {PROJECT_QUOTA.plural, *PROJECT_QUOTA.short_names} & {
        name for info in KINDS.values() for name in (info.plural, *info.short_names)
    }


def test_on_a_member_every_role_only_reads_and_owners_also_see_access():
    def grants(role):
        return {
            (group, resource, verb)
            for rule in role_rules(role)
            for group in rule["apiGroups"]
            for resource in rule["resources"]
            for verb in rule["verbs"]
        }

    viewer, developer, owner = grants(ProjectRole.VIEWER), grants(ProjectRole.DEVELOPER), grants(ProjectRole.OWNER)
    assert ("pincompute.io", "pinapps", "list") in viewer and ("", "pods/log", "get") in viewer
    assert {verb for _, _, verb in owner} == {"get", "list", "watch"}  # no create, update, patch, delete
    assert not {res for _, res, _ in owner} & {
        "pods/exec",
        "pods/attach",
        "pods/ephemeralcontainers",
        "pinapps/scale",
    }  # shells: the portal's
    assert viewer == developer < owner
    assert owner - developer == {("rbac.authorization.k8s.io", "rolebindings", v) for v in ("get", "list", "watch")}


@pytest.mark.parametrize("manifest", cluster_role_manifests(), ids=lambda m: m["metadata"]["name"])
def test_cluster_roles_are_named_after_the_role_binding_they_back(manifest):
    assert manifest["kind"] == "ClusterRole"
    assert manifest["metadata"]["name"] in {role.cluster_role for role in ProjectRole}


@pytest.mark.parametrize(
    ("text", "value"),
    [("CC-1042", "CC-1042"), ("ads ranking/eu", "ads-ranking-eu"), ("-x-", "x"), ("a" * 80, "a" * 63), ("", "")],
)
def test_label_values_are_valid_kubernetes_label_values(text, value):
    assert label_value(text) == value


def test_the_rights_on_the_projects_configs_are_bound_in_the_project_namespace_only():
    """pincompute.federation_rights: RoleBindings in the project namespace of the chart's ClusterRoles (named per
    release): on the host the portal's edit and the operator's read, on a member the operator's copies; no identity
    named, no binding."""
    portal = ["system:serviceaccount:pc:web", "system:serviceaccount:pc:worker", "system:serviceaccount:pc:web"]
    host_op, member_op = "system:serviceaccount:pc:op", "system:serviceaccount:m:op"
    tenant = dataclasses.replace(
        ADS,
        host_rights=(
            *right_of(PORTAL_BINDING_NAME, "r1-portal-project-configs", portal),
            *right_of(BINDING_NAME, "r1-federation-project-configs", [host_op]),
        ),
        member_rights=right_of(BINDING_NAME, "r1-federation-config-copies", [member_op, ""]),
    )

    on_host = [m for m in host_manifests(tenant) if m["kind"] == "RoleBinding"]
    on_member = [m for m in member_manifests(tenant) if m["metadata"]["name"] == BINDING_NAME]

    def users(*names: str) -> list[dict[str, str]]:
        return [Subject("User", n).manifest() for n in names]

    assert [(b["metadata"]["namespace"], b["roleRef"]["name"], b["subjects"]) for b in on_host + on_member] == [
        ("proj-ads", "r1-portal-project-configs", users(*portal[:2])),
        ("proj-ads", "r1-federation-project-configs", users(host_op)),
        ("proj-ads", "r1-federation-config-copies", users(member_op)),
    ]
    assert all(b["roleRef"]["kind"] == "ClusterRole" for b in on_host + on_member)
    names = {BINDING_NAME, PORTAL_BINDING_NAME}
    assert not [m for m in host_manifests(ADS) + member_manifests(ADS) if m["metadata"]["name"] in names]
    assert right_of(BINDING_NAME, "", [host_op]) == () == right_of(BINDING_NAME, "r", ["", " "])
