"""The preview service: placement with the federation's functions from the host's MemberCluster objects (chosen
clusters with replicas, every filtered-out one with its reason, scores, what is already placed counted), the
native objects per cluster with the injected runtime marked, the quota fit per tier, an edit's diff; refusals."""

from __future__ import annotations

import pytest

from base.errors import NotFound
from pincompute.errors import SpecInvalid
from pincompute.kinds import MEMBER_CLUSTER
from tests.support.factories import fill, workload_cr
from tests.support.kinds import *  # noqa: F403
from tests.support.kinds import member
from workloads.examples import example
from workloads.preview import preview

pytestmark = pytest.mark.django_db


def test_a_pinapp_is_placed_one_shard_per_zone_with_scores(granted, members, developer):
    shown = preview(granted, example("PinApp", project="ads"), actor=developer)

    assert [(s.cluster, s.zone, s.replicas) for s in shown.placement.shards] == [
        ("member-a", "local-1a", 1),
        ("member-b", "local-1b", 1),
    ]
    assert all(row.chosen and row.score is not None for row in shown.placement.clusters)
    assert shown.refusal is None and shown.quota.verdict == "fits" and shown.diff is None


def test_every_filtered_out_cluster_says_why(granted, members, developer):
    members.put(MEMBER_CLUSTER.plural, member("member-c", "local-1c", reachable=False))
    document = example("PinPod", project="ads")
    document["spec"]["hardwareFamily"] = "g5"

    shown = preview(granted, document, actor=developer)

    assert shown.placement.shards == []
    reasons = {row.name: " ".join(row.reasons) for row in shown.placement.clusters}
    assert "has no g5 hardware" in reasons["member-a"] and "is unhealthy" in reasons["member-c"]
    assert [c.placement.cluster for c in shown.clusters] == ["(not placed)"]  # the objects still show


def test_what_is_already_placed_lowers_a_clusters_score(granted, members, developer, caches):
    before = preview(granted, example("PinPod", project="ads"), actor=developer).placement
    busy = workload_cr("big", kind="PinPod", cpu="40", memory="1Gi", clusters=("member-a",))
    busy["status"]["placement"]["clusters"][0]["replicas"] = 1
    fill(caches, "host", busy)

    after = preview(granted, example("PinPod", project="ads"), actor=developer).placement

    score = {r.name: r.score for r in after.clusters}
    assert score["member-a"] < {r.name: r.score for r in before.clusters}["member-a"]
    assert [s.cluster for s in after.shards] == ["member-b"]


def test_the_injected_runtime_is_marked_per_cluster_with_the_report(granted, members, developer):
    shown = preview(granted, example("PinApp", project="ads"), actor=developer)

    deployment = next(o for o in shown.clusters[0].objects if o.kind == "Deployment")
    injected = "\n".join(line.text for line in deployment.lines if line.injected)
    plain = "\n".join(line.text for line in deployment.lines if not line.injected)
    assert "name: config-init" in injected and "name: pincompute-security" in injected
    assert "priorityClassName:" in injected and "PINCOMPUTE_PROJECT" in injected
    assert "name: LOG_LEVEL" in plain and "image: registry.local/demo/web:1.4.2" in plain
    added = {item.path for item in shown.clusters[0].report.added}
    assert "spec.initContainers[name=config-init]" in added and "spec.priorityClassName" in added


def test_the_quota_fit_counts_admitted_waiting_and_this_workload(granted, members, developer, caches):
    fill(caches, "host", workload_cr("held", replicas=2, cpu="2"), workload_cr("queued", cpu="1", admitted=False))

    quota = preview(granted, example("PinApp", project="ads"), actor=developer).quota

    cpu = next(r for r in quota.for_tier(quota.tier) if r.resource == "cpu")
    assert (cpu.held, cpu.waiting, cpu.granted) == (4300, 2300, 8000)  # 2 replicas each, the runtime's 150m counted
    assert cpu.this == 800  # 2 replicas x (250m + the runtime's 150m)
    assert quota.verdict == "fits" and quota.waiting_count == 1


def test_a_workload_over_the_free_grant_waits_and_one_over_the_whole_grant_is_refused(granted, members, developer):
    big = example("PinPod", project="ads")
    big["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "20"

    shown = preview(granted, big, actor=developer)

    assert shown.quota.verdict == "never" and shown.refusal is not None and shown.refusal.status == 403
    assert any(f.path == "OnDemand.cpu" for f in shown.refusal.fields)


def test_an_edit_shows_the_spec_and_object_diff(granted, members, developer, caches):
    live = example("PinApp", project="ads")
    live["metadata"] |= {"namespace": "proj-ads", "uid": "uid-web", "resourceVersion": "41", "generation": 41}
    live["spec"] |= {"team": "ads", "costCenter": "CC-1"}
    live["status"] = {"placement": {"clusters": [{"cluster": "member-b", "zone": "local-1b", "replicas": 1}]}}
    fill(caches, "host", live)
    edited = example("PinApp", project="ads")
    edited["spec"]["template"]["containers"][0]["image"] = "registry.local/demo/web:2.0"

    diff = preview(granted, edited, actor=developer, version="40").diff

    assert [(c.path, c.after) for c in diff.spec] == [
        ("spec.template.containers[0].image", "registry.local/demo/web:2.0")
    ]
    changed = [o for o in diff.objects if o.state == "changed"]
    assert changed and all("Deployment" in o.key for o in changed)
    assert any(c.path.endswith("containers[0].image") for o in changed for c in o.changes)
    assert "version 40" in diff.stale and "41" in diff.stale


def test_a_pinscaler_follows_its_target(granted, members, developer, caches):
    app = workload_cr("web", clusters=("member-a",))
    app["status"]["placement"]["clusters"][0]["zone"] = "local-1a"
    fill(caches, "host", app)

    shown = preview(granted, example("PinScaler", project="ads"), actor=developer)

    assert [s.cluster for s in shown.placement.shards] == ["member-a"]
    assert "Follows its target PinApp web" in shown.placement.problem
    assert [o.kind for o in shown.clusters[0].objects] == ["HorizontalPodAutoscaler"]


def test_an_invalid_spec_is_refused_with_every_path(granted, members, developer):
    document = example("PinApp", project="ads")
    document["spec"]["replicas"] = "two"
    del document["spec"]["zones"]

    with pytest.raises(SpecInvalid) as refused:
        preview(granted, document, actor=developer)

    assert {f.path for f in refused.value.fields} == {"spec.replicas", "spec.zones"}


def test_a_viewer_may_preview_and_another_tenant_gets_a_404(granted, members, viewer, other_user):
    shown = preview(granted, example("PinApp", project="ads"), actor=viewer)  # a preview writes nothing

    assert shown.outcome.action == "created" and shown.placement.shards
    with pytest.raises(NotFound):
        preview(granted, example("PinApp", project="ads"), actor=other_user)


def test_without_the_host_the_cached_copy_stands_in_and_the_preview_says_so(granted, members, developer, caches):
    live = example("PinApp", project="ads")  # as kubectl wrote it: no portal defaults (team, costCenter)
    live["metadata"] |= {"namespace": "proj-ads", "uid": "uid-web", "resourceVersion": "41", "generation": 41}
    live["spec"]["project"] = "ads"
    fill(caches, "host", live)

    shown = preview(granted, example("PinApp", project="ads"), actor=developer)

    assert shown.outcome.action == "unchanged" and shown.diff.spec == []  # the defaults are not added by an update
    assert any("did not answer" in p and "cached copy" in p for p in shown.problems)
