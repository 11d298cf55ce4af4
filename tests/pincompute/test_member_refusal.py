"""A member refusing a workload's pods: the shard's Refused condition, the host's MemberRefused, and what admission
reads of it (the end-to-end run is tests/pincompute/operator/federation/test_member_refused.py)."""

from datetime import UTC, datetime

from pincompute.federation.refusal import admission_refused, current_refusal
from pincompute.status import aggregate_shards, derive_status, set_condition
from tests.support.examples import example

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
FORBIDDEN = (
    'pods "web-us-east-1a-5d9f-x" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation '
    '!= false (container "app" must set securityContext.allowPrivilegeEscalation=false)'
)


def refusing_deployment():
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web-us-east-1a", "generation": 1, "labels": {"pincompute.io/zone": "us-east-1a"}},
        "spec": {"replicas": 2},
        "status": {
            "observedGeneration": 1,
            "conditions": [
                {"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate", "message": FORBIDDEN}
            ],
        },
    }


def conditions(status):
    return {c["type"]: c for c in status["conditions"]}


def test_a_deployment_whose_pods_are_refused_makes_a_refused_degraded_shard():
    status = derive_status("PinApp", example("PinApp"), [refusing_deployment()], now=T0)

    said = conditions(status)
    assert said["Refused"]["status"] == "True" and said["Refused"]["reason"] == "PodSecurity"
    assert said["Refused"]["message"] == f"web-us-east-1a: {FORBIDDEN}"
    assert said["Degraded"]["status"] == "True" and said["Ready"]["status"] == "False"
    assert status["shards"][0]["state"] == "Refused"

    healed = derive_status("PinApp", {**example("PinApp"), "status": status}, [], now=T0)
    assert conditions(healed)["Refused"]["status"] == "False"  # once said, it is also unsaid


def test_the_host_shows_which_member_refused_and_why():
    refused = derive_status("PinApp", example("PinApp"), [refusing_deployment()], now=T0)

    host = conditions(aggregate_shards({"member-a": refused, "member-b": {}}))

    assert host["MemberRefused"]["status"] == "True" and host["MemberRefused"]["reason"] == "PodSecurity"
    assert host["MemberRefused"]["message"] == f"member member-a: web-us-east-1a: {FORBIDDEN}"
    assert "MemberRefused" not in conditions(aggregate_shards({"member-b": {}}))  # only when a member refuses
    assert "MemberRefused" not in conditions(aggregate_shards({"member-a": refused}, unreachable={"member-a": "t"}))


def test_admission_reads_a_refusal_of_the_present_generation_only():
    obj = {"metadata": {"generation": 4}, "status": {"conditions": []}}
    said = set_condition([], "MemberRefused", "True", "PodSecurity", "member member-a: no", 4, T0)
    refused = {**obj, "status": {"conditions": said}}

    assert current_refusal(refused)["message"] == "member member-a: no"
    assert admission_refused(current_refusal(refused)) == {
        "type": "Admitted",
        "status": "False",
        "reason": "MemberRefused",
        "message": "not admitted until its spec changes: member member-a: no",
    }
    assert current_refusal({**refused, "metadata": {"generation": 5}}) == {}  # edited: tried afresh
    assert current_refusal(obj) == {}
