from pincompute.quantity import Resources, parse_memory
from pincompute.quota import (
    TierQuota,
    TierUsage,
    check_fit,
    limit_range_manifest,
    pod_request,
    resource_quota_manifests,
    shrink_violation,
)
from pincompute.tiers import Tier, priority_class_manifests

GI = 2**30


def test_fit_within_quota_is_ok():
    quota = TierQuota({Tier.RESERVED: Resources(8000, 32 * GI)})
    usage = TierUsage({Tier.RESERVED: Resources(6000, GI)})
    verdict = check_fit(quota, usage, Resources(2000, GI), Tier.RESERVED)
    assert verdict.ok
    assert verdict.violations == []


def test_violation_message_names_tier_resource_and_excess():
    quota = TierQuota({Tier.RESERVED: Resources(8000, 32 * GI)})
    usage = TierUsage({Tier.RESERVED: Resources(7000, 0)})
    verdict = check_fit(quota, usage, Resources(2000, 512 * 2**20), Tier.RESERVED)
    assert not verdict.ok
    [violation] = verdict.violations
    assert violation.resource == "cpu"
    assert violation.over_by == 1000
    assert violation.message == "Reserved cpu: requested 2 + used 7 exceeds the quota of 8 by 1"


def test_every_exceeded_resource_is_reported():
    quota = TierQuota({Tier.ONDEMAND: Resources(1000, GI, 0)})
    verdict = check_fit(quota, TierUsage(), Resources(1500, 2 * GI, 1), Tier.ONDEMAND)
    assert [v.resource for v in verdict.violations] == ["cpu", "memory", "gpu"]
    assert verdict.violations[1].message == ("OnDemand memory: requested 2Gi + used 0 exceeds the quota of 1Gi by 1Gi")
    assert verdict.violations[0].message.endswith("by 500m")


def test_quota_from_portal_dict():
    quota = TierQuota.from_k8s({"Reserved": {"cpu": "8", "memory": "32Gi"}, "preemptible": {"cpu": "1"}})
    assert quota.for_tier(Tier.RESERVED) == Resources(8000, 32 * GI)
    assert quota.for_tier(Tier.PREEMPTIBLE).cpu_milli == 1000
    assert quota.for_tier(Tier.ONDEMAND) == Resources()


def test_shrink_violation_says_by_how_much():
    shortfalls = shrink_violation(Resources(10000, 64 * GI, 4), Resources(12000, 32 * GI, 4))
    assert [(s.resource, s.pool, s.granted, s.below_by) for s in shortfalls] == [("cpu", 10000, 12000, 2000)]
    assert shortfalls[0].message == "the new pool of 10 is 2 below the 12 already granted"
    assert shrink_violation(Resources(1, 1, 1), Resources()) == []


def test_resource_quotas_scoped_by_priority_class():
    quota = TierQuota({Tier.RESERVED: Resources(8000, 32 * GI, 2)})
    manifests = resource_quota_manifests("team-a", quota)
    assert [m["metadata"]["name"] for m in manifests] == [
        "pincompute-reserved",
        "pincompute-ondemand",
        "pincompute-preemptible",
    ]
    reserved = manifests[0]
    assert reserved["spec"]["hard"] == {"requests.cpu": "8", "requests.memory": "32Gi", "requests.nvidia.com/gpu": "2"}
    assert reserved["spec"]["scopeSelector"]["matchExpressions"] == [
        {"scopeName": "PriorityClass", "operator": "In", "values": ["pincompute-reserved"]}
    ]
    assert manifests[1]["spec"]["hard"]["requests.cpu"] == "0"
    assert all(m["metadata"]["namespace"] == "team-a" for m in manifests)


def test_unclassified_pods_can_be_denied():
    manifests = resource_quota_manifests("team-a", TierQuota(), deny_unclassified=True)
    last = manifests[-1]
    assert last["spec"]["hard"] == {"pods": "0"}
    assert last["spec"]["scopeSelector"]["matchExpressions"][0]["operator"] == "NotIn"


def test_limit_range_defaults_requests_only():
    spec = limit_range_manifest("team-a")["spec"]["limits"][0]
    assert spec["defaultRequest"] == {"cpu": "100m", "memory": "128Mi"}
    assert "default" not in spec


def test_priority_classes():
    classes = {m["metadata"]["name"]: m for m in priority_class_manifests()}
    assert (
        classes["pincompute-reserved"]["value"]
        > classes["pincompute-ondemand"]["value"]
        > classes["pincompute-preemptible"]["value"]
    )
    assert classes["pincompute-preemptible"]["preemptionPolicy"] == "Never"


def test_pod_request_counts_native_sidecars_with_main_containers():
    main = Resources(1000, parse_memory("1Gi"))
    sidecar = Resources(100, parse_memory("64Mi"))
    big_init = Resources(4000, 0)
    total = pod_request([main], [(sidecar, True), (big_init, False)])
    assert total == Resources(4100, parse_memory("1Gi") + parse_memory("64Mi"))
