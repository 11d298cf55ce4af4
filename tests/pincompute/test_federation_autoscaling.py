"""A PinScaler's bounds in its PinApp's claim: what the members' autoscalers may run is what is admitted."""

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pincompute.federation.admission import QUOTA_EXCEEDED, Admission, Claim, ScalerBounds, claim_of, recorded_admission
from pincompute.federation.autoscaling import Steering, admit_scaled, autoscaled, bounds_of, reach, scaler_shards
from pincompute.federation.failover import fail_over
from pincompute.federation.propagation import shard_manifest
from pincompute.grants import Allocation
from pincompute.operator.placement_annotations import placement_for
from pincompute.placement import Placement
from pincompute.runtime import load_profile
from pincompute.specs import PinApp, PinScaler, parse
from pincompute.tiers import Tier
from pincompute.translate import translate
from tests.support.examples import example
from tests.support.failover_plans import cluster as failover_cluster
from tests.support.failover_plans import lost
from tests.support.failover_plans import request as failover_request

T0 = datetime(2026, 11, 1, tzinfo=UTC)
TIER = Tier.ONDEMAND
POD = 500  # millicores of one replica in these tests


def steer(name, target, high, admitted=None):
    return Steering(f"PinScaler/{name}", ScalerBounds(target, high), admitted)


def app_claim(name, pods, at=0):
    return Claim(f"PinApp/{name}", TIER, Allocation(POD * pods, 0, 0, pods), T0 + timedelta(seconds=at), f"uid-{name}")


def scaler_of(high, windows=()):
    cr = example("PinScaler")
    cr["spec"]["minReplicas"], cr["spec"]["maxReplicas"] = 1, high
    cr["spec"]["schedules"] = [
        {"name": f"w{i}", "cron": "0 9 * * *", "minReplicas": 1, "maxReplicas": w, "durationMinutes": 60}
        for i, w in enumerate(windows)
    ]
    scaler = parse(cr)
    assert isinstance(scaler, PinScaler)
    return scaler


# -- what the members' autoscalers may run ------------------------------------------------------------------------


@given(st.integers(1, 60), st.integers(1, 6), st.lists(st.integers(1, 60), max_size=3))
def test_the_reach_counted_is_the_sum_of_the_maxima_translation_gives_the_members_hpas(high, zones, windows):
    scaler = scaler_of(high, windows)
    cr = example("PinScaler")
    target = example("PinApp")
    target["spec"]["zones"] = [f"z{i}" for i in range(zones)]
    shards = []
    for low_high in [(1, high), *((1, w) for w in windows)]:
        cr["spec"]["minReplicas"], cr["spec"]["maxReplicas"] = low_high
        hpas = translate(cr, load_profile(), Placement("member-a"), target=target)
        shards.append(sum(h["spec"]["maxReplicas"] for h in hpas))

    counted = reach("web", zones, [Steering("PinScaler/s", bounds_of(scaler), None)])

    assert counted == max(shards)  # the members' HPAs together may run exactly what is counted, never more
    assert counted >= max([high, *windows])


def test_every_zone_hpa_runs_at_least_one_so_a_max_below_the_zones_counts_one_per_zone():
    assert reach("web", 3, [steer("s", "web", 1)]) == 3
    assert reach("web", 3, [steer("s", "web", 7)]) == 7


def test_a_schedule_window_above_the_base_bounds_is_counted():
    assert bounds_of(scaler_of(4, windows=(9, 2))) == ScalerBounds("web", 9)


def test_a_scaler_counts_for_its_admitted_target_and_its_asked_one_the_largest_reach_wins():
    retargeted = Steering("PinScaler/s", ScalerBounds("api", 6), ScalerBounds("web", 4))
    others = [retargeted, steer("t", "web", 3)]

    assert reach("web", 1, others) == 4 and reach("api", 1, others) == 6
    assert reach("web", 1, others, asked=False) == 4 and reach("api", 1, others, asked=False) == 0
    assert reach("db", 1, others) == 0


def test_a_pinapp_claims_the_larger_of_its_replicas_and_its_scalers_reach():
    app = parse(example("PinApp"))  # 5 replicas of 500m
    assert isinstance(app, PinApp)
    profile = load_profile()
    per_pod = claim_of(app, T0, profile=profile).request.cpu_milli // 5

    assert claim_of(autoscaled(app, 12), T0, profile=profile).request.cpu_milli == 12 * per_pod
    assert autoscaled(app, 3) is app  # below its own replicas the autoscaler never takes it: its replicas count


def test_a_scalers_record_names_the_target_and_max_admitted_and_reads_back():
    record = Admission(3, "0123abcd", TIER, Allocation(), ScalerBounds("web", 8))

    assert record.to_status()["scaler"] == {"target": "web", "maxReplicas": 8}
    assert recorded_admission({"status": {"admission": record.to_status()}}) == record


# -- admission of a scaler's bounds ------------------------------------------------------------------------------


GRANT = {TIER: Allocation(POD * 10, 0, 0, 100)}  # room for 10 replicas


def test_a_raise_that_fits_is_admitted_with_its_pinapps_change():
    held = [app_claim("web", 4)]
    scaler = steer("s", "web", 8, admitted=ScalerBounds("web", 4))

    scaled = admit_scaled(GRANT, held, [], [app_claim("web", 8)], {"PinApp/web": None}, [scaler])

    assert [c.request.pods for c in scaled.decision.changed] == [8]
    assert not scaled.scalers_waiting


def test_a_raise_beyond_the_grant_waits_with_the_numbers_and_its_pinapp_keeps_what_it_holds():
    held = [app_claim("web", 4), app_claim("db", 4, at=1)]
    scaler = steer("s", "web", 8, admitted=ScalerBounds("web", 4))

    scaled = admit_scaled(GRANT, held, [], [app_claim("web", 8)], {"PinApp/web": None}, [scaler])

    assert not scaled.decision.changed and not scaled.decision.pending  # tried again without the raise: no change
    waits = scaled.scalers_waiting["PinScaler/s"]
    assert waits.reason == QUOTA_EXCEEDED
    assert waits.message == (
        "maxReplicas 8 would let PinApp web's autoscaler run it beyond what it holds (cpu 2, memory 0, gpu 0, pods 4), "
        "and that waits for the grant: OnDemand cpu: requested 4 + 2 held by admitted workloads exceeds the project's "
        "grant of 5 by 1"
    )
    assert scaled.decision.held[TIER].pods == 8


def test_a_waiting_raise_never_holds_its_pinapps_own_change_hostage():
    held = [app_claim("web", 4), app_claim("db", 4, at=1)]
    scaler = steer("s", "web", 8, admitted=ScalerBounds("web", 4))
    own = app_claim("web", 5)  # the PinApp's own change (one more replica) fits; with the raise it does not

    scaled = admit_scaled(GRANT, held, [], [app_claim("web", 8)], {"PinApp/web": own}, [scaler])

    assert scaled.decision.changed == (own,)
    assert "PinScaler/s" in scaled.scalers_waiting


def test_lowering_max_grows_nothing_and_is_admitted_at_once_even_when_its_pinapp_waits():
    held = [app_claim("web", 8), app_claim("db", 2, at=1)]
    lower = steer("s", "web", 4, admitted=ScalerBounds("web", 8))
    grown = Claim("PinApp/web", TIER, Allocation(POD * 2 * 8, 0, 0, 8), T0, "uid-web")  # its own, bigger pods

    scaled = admit_scaled(GRANT, held, [], [grown], {}, [lower])

    assert "PinApp/web" in scaled.decision.pending and not scaled.scalers_waiting


def test_a_scaler_of_a_pinapp_not_admitted_is_admitted_and_the_pinapp_waits_with_its_reach():
    waiting = [app_claim("web", 12)]  # 2 replicas, a scaler's reach of 12: beyond the grant of 10

    scaled = admit_scaled(GRANT, [], waiting, [], {}, [steer("s", "web", 12)])

    assert not scaled.scalers_waiting and not scaled.decision.admit
    assert scaled.decision.verdicts["PinApp/web"].reason == QUOTA_EXCEEDED


# -- the rule over any sequence of edits --------------------------------------------------------------------------


@dataclass
class App:
    replicas: int
    zones: int
    record: int | None = None  # the pods its admission holds (None: not admitted)
    admitted: tuple[int, int] | None = None  # (replicas, zones) of the admitted spec


@dataclass
class Scaler:
    asked: ScalerBounds
    admitted: ScalerBounds | None = None


@dataclass
class Project:
    apps: dict[str, App] = field(default_factory=dict)
    scalers: dict[str, Scaler] = field(default_factory=dict)

    def steering(self) -> list[Steering]:
        return [Steering(f"PinScaler/{n}", s.asked, s.admitted) for n, s in sorted(self.scalers.items())]

    def run_pass(self, grant: Allocation) -> None:
        """What the admitter does in one pass, on this model: claims, changes, the decision, the records."""
        steering = self.steering()
        held, waiting, changes, without = [], [], [], {}
        for at, (name, app) in enumerate(sorted(self.apps.items())):
            full = app_claim(name, max(app.replicas, reach(name, app.zones, steering)), at)
            if app.record is None:
                waiting.append(full)
                continue
            holds = app_claim(name, app.record, at)
            held.append(holds)
            changed = app.admitted != (app.replicas, app.zones)
            if changed or full.request.pods != app.record:
                changes.append(full)
                alone = app_claim(name, max(app.replicas, reach(name, app.zones, steering, asked=False)), at)
                if alone != full:
                    without[full.key] = alone if changed or alone.request.pods != app.record else None
        scaled = admit_scaled({TIER: grant}, held, waiting, changes, without, steering)
        for claim in (*scaled.decision.admit, *scaled.decision.changed):
            app = self.apps[claim.key.split("/")[1]]
            app.record, app.admitted = claim.request.pods, (app.replicas, app.zones)
        for name, scaler in self.scalers.items():
            if f"PinScaler/{name}" not in scaled.scalers_waiting:
                scaler.admitted = scaler.asked

    def members_may_run(self, name: str) -> int:
        """Pods the members may run of an admitted PinApp: its admitted replicas, or its admitted scalers' HPAs."""
        app = self.apps[name]
        assert app.admitted is not None
        replicas, zones = app.admitted
        hpas = [s.admitted.max_replicas for s in self.scalers.values() if s.admitted and s.admitted.target == name]
        return max([replicas, *(max(high, zones) for high in hpas)])


APPS = ("web", "api")
edit = st.one_of(
    st.tuples(st.just("replicas"), st.sampled_from(APPS), st.integers(1, 8)),
    st.tuples(st.just("zones"), st.sampled_from(APPS), st.integers(1, 3)),
    st.tuples(st.just("max"), st.sampled_from(("s", "t")), st.integers(1, 14)),
    st.tuples(st.just("target"), st.sampled_from(("s", "t")), st.sampled_from(APPS)),
    st.tuples(st.just("delete"), st.sampled_from(("s", "t")), st.just(0)),
    st.tuples(st.just("pass"), st.just(""), st.just(0)),
)


@settings(max_examples=300)
@given(st.integers(2, 14), st.lists(edit, max_size=40))
def test_for_any_edits_the_members_never_run_more_than_admitted_and_the_grant_holds(room, edits):
    grant = Allocation(POD * room, 0, 0, 100)
    project = Project({name: App(2, 1) for name in APPS}, {"s": Scaler(ScalerBounds("web", 3))})
    for what, name, value in edits:
        if what == "replicas":
            project.apps[name].replicas = value
        elif what == "zones":
            project.apps[name].zones = value
        elif what == "max":
            scaler = project.scalers.setdefault(name, Scaler(ScalerBounds("web", value)))
            scaler.asked = ScalerBounds(scaler.asked.target, value)
        elif what == "target" and name in project.scalers:
            project.scalers[name].asked = ScalerBounds(value, project.scalers[name].asked.max_replicas)
        elif what == "delete":
            project.scalers.pop(name, None)  # its HPAs are gone before its host object (the finalizer)
        project.run_pass(grant)
        admitted = {n: a for n, a in project.apps.items() if a.record is not None}
        assert sum(a.record or 0 for a in admitted.values()) * POD <= grant.cpu_milli
        for name, app in admitted.items():
            assert project.members_may_run(name) <= (app.record or 0), (name, project)


# -- a scaler's HPAs after its PinApp failed over ----------------------------------------------------------------


def scaler_hpas(low: int, high: int, target_shards: list[Placement]) -> list[tuple[str, dict]]:
    """(member, HPA) the members write for a scaler following ``target_shards``: through the shard manifests'
    annotations, as each member operator reads its placement."""
    cr = example("PinScaler")
    cr["spec"]["minReplicas"], cr["spec"]["maxReplicas"] = low, high
    hpas = []
    for shard in scaler_shards(target_shards):
        manifest = shard_manifest(cr, shard, cr["spec"])
        made = translate(manifest, load_profile(), placement_for(manifest, shard.cluster, shard.zone))
        hpas += [(shard.cluster, hpa) for hpa in made]
    return hpas


@given(
    zones=st.integers(1, 4),
    per_zone=st.integers(1, 4),
    lost_zones=st.sets(st.integers(0, 3), min_size=1),
    budget=st.integers(0, 12),
    low=st.integers(1, 12),
    extra=st.integers(0, 24),
    spares=st.integers(0, 2),
)
def test_after_any_failover_the_scalers_hpas_hold_its_floor_and_ceiling_over_the_shards_that_run(
    zones, per_zone, lost_zones, budget, low, extra, spares
):
    names = [f"m{i}" for i in range(zones)]
    shards = [Placement(n, f"z{i}", "r", i, zones, per_zone) for i, n in enumerate(names)]
    candidates = [failover_cluster(n, f"z{i}") for i, n in enumerate(names)]
    candidates += [failover_cluster(f"spare{i}", f"z{i % zones}") for i in range(spares)]
    gone = lost(*(names[i] for i in lost_zones if i < zones))
    zone_names = tuple(f"z{i}" for i in range(zones))
    plan = fail_over(failover_request(zones * per_zone, zones=zone_names), shards, candidates, gone, budget=budget)
    assume(plan.shards)
    high = low + extra

    placed = scaler_hpas(low, high, plan.shards)
    hpas = [hpa for _, hpa in placed]

    # one per shard that runs, each on its member's Deployment of that shard
    assert [(m, h["spec"]["scaleTargetRef"]["name"]) for m, h in placed] == [
        (p.cluster, f"web-{p.zone}") for p in sorted(plan.shards, key=lambda p: (p.shard_index, p.cluster))
    ]
    assert sum(h["spec"]["minReplicas"] for h in hpas) >= low  # the floor holds over what runs
    assert sum(h["spec"]["maxReplicas"] for h in hpas) == max(high, len(hpas))  # the ceiling, at least one each
    assert all(h["spec"]["minReplicas"] <= h["spec"]["maxReplicas"] for h in hpas)


def test_a_member_that_took_a_lost_zone_over_gets_the_scalers_whole_bounds():
    shards = [Placement("a", "z1", "r", 0, 2, 2), Placement("b", "z2", "r", 1, 2, 2)]
    candidates = [failover_cluster("a", "z1"), failover_cluster("b", "z2", healthy=False)]
    plan = fail_over(failover_request(4), shards, candidates, lost("b"), budget=4)

    ((_, hpa),) = scaler_hpas(2, 8, plan.shards)

    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (2, 8)  # zone-numbered: 1 and 4
    assert [p.shard_index for p in scaler_shards(shards)] == [0, 1]  # without a failover: the zones' own numbers
