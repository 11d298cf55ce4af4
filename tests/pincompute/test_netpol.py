"""The project NetworkPolicies generator: the objects it writes, and (property tests) that a CNI enforcing them
admits exactly what ``admits`` says: the project's own pods, the platform's namespaces, and the openings."""

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pincompute.netpol import (
    ISOLATION_POLICY,
    NAMESPACE_NAME_LABEL,
    NO_OPENING_RULE,
    OPENINGS_POLICY,
    NetworkPlan,
    NetworkSettings,
    Opening,
    Protocol,
    admits,
    describe,
    network_policy_manifests,
)

SETTINGS = NetworkSettings(platform=("monitoring",), ingress=("ingress-nginx",))
NAMESPACES = ("proj-ads", "proj-ml", "proj-web", "monitoring", "ingress-nginx", "kube-system", "default")


def enforce(policies: list[dict[str, Any]], namespace: str, source: str, port: int, protocol: str) -> bool:
    """A NetworkPolicy engine for what the generator writes (namespace peers by name label, pod peers in the
    policy's namespace, port + protocol): a pod selected by any Ingress policy admits the union of their rules."""
    for policy in policies:
        assert policy["spec"]["podSelector"] == {} and policy["spec"]["policyTypes"] == ["Ingress"]
        for rule in policy["spec"]["ingress"]:
            ports = rule.get("ports")
            if ports and not any(p["port"] == port and p["protocol"] == protocol for p in ports):
                continue
            for peer in rule["from"]:
                if "namespaceSelector" in peer:
                    if peer["namespaceSelector"]["matchLabels"] == {NAMESPACE_NAME_LABEL: source}:
                        return True
                elif peer == {"podSelector": {}} and source == policy["metadata"]["namespace"]:
                    return True
    return False


def test_without_openings_only_the_project_and_the_platform_get_in():
    policies = network_policy_manifests("ads", "proj-ads", NetworkPlan(SETTINGS))

    assert [(p["kind"], p["metadata"]["name"], p["metadata"]["namespace"]) for p in policies] == [
        ("NetworkPolicy", ISOLATION_POLICY, "proj-ads"),
        ("NetworkPolicy", OPENINGS_POLICY, "proj-ads"),
    ]
    assert policies[0]["spec"]["ingress"] == [
        {"from": [{"podSelector": {}}, {"namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: "monitoring"}}}]}
    ]
    assert policies[1]["spec"]["ingress"] == [NO_OPENING_RULE]  # never empty: see NO_OPENING_RULE
    assert enforce(policies, "proj-ads", "proj-ads", 8080, "TCP")
    assert enforce(policies, "proj-ads", "monitoring", 9090, "TCP")
    assert not enforce(policies, "proj-ads", "proj-ml", 8080, "TCP")
    assert not enforce(policies, "proj-ads", "ingress-nginx", 80, "TCP")  # the ingress only on opened ports


def test_an_opening_admits_its_port_and_protocol_from_its_sources_only():
    plan = NetworkPlan(SETTINGS, (Opening(8080, Protocol.TCP, ("proj-ml",), ingress=True),))
    policies = network_policy_manifests("ads", "proj-ads", plan)

    assert policies[1]["spec"]["ingress"] == [
        {
            "from": [
                {"namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: "ingress-nginx"}}},
                {"namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: "proj-ml"}}},
            ],
            "ports": [{"port": 8080, "protocol": "TCP"}],
        }
    ]
    assert enforce(policies, "proj-ads", "proj-ml", 8080, "TCP")
    assert enforce(policies, "proj-ads", "ingress-nginx", 8080, "TCP")
    assert not enforce(policies, "proj-ads", "proj-ml", 8080, "UDP")
    assert not enforce(policies, "proj-ads", "proj-ml", 8081, "TCP")
    assert not enforce(policies, "proj-ads", "proj-web", 8080, "TCP")
    assert describe(plan) == {
        ISOLATION_POLICY: [
            "every port from the project's own pods",
            "every port from the platform's namespaces (monitoring)",
        ],
        OPENINGS_POLICY: ["TCP 8080 from proj-ml, the ingress"],
    }


def test_an_opening_to_the_ingress_without_ingress_namespaces_writes_no_rule_that_admits_everyone():
    plan = NetworkPlan(NetworkSettings(platform=(), ingress=()), (Opening(80, ingress=True),))
    policies = network_policy_manifests("ads", "proj-ads", plan)

    assert policies[1]["spec"]["ingress"] == [NO_OPENING_RULE]  # a rule without "from" would admit every source
    assert not enforce(policies, "proj-ads", "default", 80, "TCP")


openings = st.builds(
    Opening,
    port=st.sampled_from((80, 443, 8080, 65535)),
    protocol=st.sampled_from(Protocol),
    projects=st.lists(st.sampled_from(NAMESPACES[:3]), max_size=3).map(tuple),
    ingress=st.booleans(),
)
settings = st.builds(
    NetworkSettings,
    platform=st.lists(st.sampled_from(NAMESPACES[3:]), max_size=2).map(tuple),
    ingress=st.lists(st.sampled_from(NAMESPACES[3:]), max_size=2).map(tuple),
)


@given(
    settings,
    st.lists(openings, max_size=5),
    st.sampled_from(NAMESPACES),
    st.sampled_from((80, 443, 8080, 65535, 22)),
    st.sampled_from(Protocol),
)
def test_the_policies_admit_exactly_what_the_plan_says(settings, opened, source, port, protocol):
    plan = NetworkPlan(settings, tuple(opened))
    policies = network_policy_manifests("ads", "proj-ads", plan)

    expected = admits(plan, "proj-ads", source, port, protocol)
    assert enforce(policies, "proj-ads", source, port, protocol.value) is expected
    for policy in policies:  # every rule names its sources: none admits the whole cluster
        assert all(rule["from"] for rule in policy["spec"]["ingress"])


@given(settings, st.lists(openings, max_size=5), st.randoms())
def test_the_same_plan_in_any_order_gives_the_same_objects(settings, opened, rnd):
    shuffled = list(opened)
    rnd.shuffle(shuffled)
    first = network_policy_manifests("ads", "proj-ads", NetworkPlan(settings, tuple(opened)))
    assert first == network_policy_manifests("ads", "proj-ads", NetworkPlan(settings, tuple(shuffled)))
