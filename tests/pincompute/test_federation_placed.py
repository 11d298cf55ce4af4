"""What admitted host objects hold on each member, read once per object version (``federation.placed``)."""

import copy

from pincompute.federation.placed import placed_usage
from pincompute.federation.propagation import placement_request
from pincompute.runtime import load_profile
from pincompute.specs import parse
from pincompute.tiers import Tier
from tests.support.examples import example

PROFILE = load_profile()


def placed(kind, uid, version, rows, admitted="True"):
    obj = copy.deepcopy(example(kind))
    obj["metadata"].update(uid=uid, resourceVersion=version, generation=1)
    obj["status"] = {
        "conditions": [{"type": "Admitted", "status": admitted}],
        "placement": {"clusters": [{"cluster": c, "zone": f"z-{c}", "replicas": n} for c, n in rows]},
    }
    return obj


class Counting:
    def __init__(self):
        self.calls = 0

    def __call__(self, _kind, obj):
        self.calls += 1
        return parse(obj)


def test_placed_usage_sums_admitted_shards_and_parses_each_spec_once_per_generation():
    app = placed("PinApp", "u-app", "10", [("member-a", 2), ("member-b", 1)])
    waiting = placed("PinApp", "u-wait", "11", [("member-a", 5)], admitted="False")
    per_replica = placement_request(parse(app), PROFILE).request_per_replica
    tier = Tier(app["spec"].get("tier", "OnDemand"))
    parse_counted = Counting()

    used = placed_usage([("PinApp", app), ("PinApp", waiting)], PROFILE, parse_counted)

    assert used == {"member-a": {tier: per_replica * 2}, "member-b": {tier: per_replica}}
    assert placed_usage([("PinApp", app)], PROFILE, parse_counted, exclude="u-app") == {}

    # a status write (new resourceVersion, same generation) moves the replicas without parsing the spec again
    moved = placed("PinApp", "u-app", "12", [("member-b", 3)])
    for _ in range(3):
        assert placed_usage([("PinApp", moved)], PROFILE, parse_counted) == {"member-b": {tier: per_replica * 3}}
    assert parse_counted.calls == 1
