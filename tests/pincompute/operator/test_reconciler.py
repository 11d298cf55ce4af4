"""Reconcile wiring over fake stores: status from owned objects, InvalidSpec, placement, taxonomy."""

import copy
import threading
from datetime import UTC, datetime

from pincompute.operator.cluster import Key
from pincompute.operator.controller import Operator
from pincompute.operator.placement_annotations import placement_for
from pincompute.operator.reconciler import Reconciler
from pincompute.runtime import load_profile
from tests.support.examples import example
from tests.support.kubeio import FakeKube, fake_cluster
from tests.support.operator import as_shard

NOW = datetime(2030, 1, 1, 12, 0, 30, tzinfo=UTC)
CONFLICT_RETRIES_METRIC = "pincompute_operator_retries_total"


def _cr(kind, **labels):
    cr = example(kind)
    cr["spec"].pop("persistence", None)
    cr["metadata"]["labels"] = labels
    return as_shard(cr)


def _reconcile(cluster, cr):
    cluster.kube.crs[cr["metadata"]["name"]] = cr
    cluster.store.apply(cr["kind"], "ADDED", cr)
    reconciler = Reconciler({"member-a": cluster}, load_profile(), now=lambda: NOW)
    return reconciler.reconcile(Key("member-a", cr["kind"], "search", cr["metadata"]["name"]))


def _status_patch(kube):
    return [c[3]["status"] for c in kube.calls if c[0] == "patch/status"][-1]


def test_new_pinpod_is_applied_and_status_says_creating():
    kube = FakeKube()
    cluster = fake_cluster(kube)

    _reconcile(cluster, _cr("PinPod"))

    assert kube.writes("apply") == [("apply", "Pod", "notebook")]
    status = _status_patch(kube)
    assert status["observedGeneration"] == 3
    ready = {c["type"]: c for c in status["conditions"]}["Ready"]
    assert ready["status"] == "False"


def test_a_pod_the_member_refuses_to_create_is_a_refused_pinpod_retried_only_on_a_change():
    kube = FakeKube()
    cluster = fake_cluster(kube)
    said = 'pods "notebook" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true'
    kube.refuse["notebook"] = said

    outcome = _reconcile(cluster, _cr("PinPod"))

    conditions = {c["type"]: c for c in _status_patch(kube)["conditions"]}
    assert conditions["Refused"]["status"] == "True" and conditions["Refused"]["reason"] == "PodSecurity"
    assert conditions["Refused"]["message"] == f"notebook: {said}"
    assert conditions["Degraded"]["reason"] == "Refused"
    assert outcome.requeue_after is None  # no loop: the next try comes with a change or the resync


def test_running_pod_makes_the_pinpod_ready_and_a_second_pass_writes_nothing():
    kube = FakeKube()
    cluster = fake_cluster(kube)
    cr = _cr("PinPod")
    _reconcile(cluster, cr)
    pod = copy.deepcopy(cluster.store.get("Pod", "search", "notebook"))
    pod["status"] = {"phase": "Running", "containerStatuses": [{"name": "jupyter", "ready": True}]}
    cluster.store.apply("Pod", "MODIFIED", pod)

    _reconcile(cluster, cr)
    status = _status_patch(kube)
    cr["status"] = status
    before = len(kube.calls)
    _reconcile(cluster, cr)

    assert {c["type"]: c["status"] for c in status["conditions"]} == {
        "Ready": "True",
        "Progressing": "False",
        "Degraded": "False",
    }
    assert status["readyReplicas"] == 1 and status["shards"][0]["state"] == "Available"
    assert kube.calls[before:] == []


def test_invalid_spec_is_degraded_with_field_paths_and_creates_nothing():
    kube = FakeKube()
    cluster = fake_cluster(kube)
    cr = _cr("PinPod")
    cr["spec"]["containers"][0]["name"] = "pincompute-security"

    outcome = _reconcile(cluster, cr)

    assert outcome.requeue_after is None
    assert kube.writes("apply") == [] and kube.writes("delete") == []
    degraded = {c["type"]: c for c in _status_patch(kube)["conditions"]}["Degraded"]
    assert degraded["status"] == "True" and degraded["reason"] == "InvalidSpec"
    assert "spec.containers[0].name" in degraded["message"]
    assert ("create", "Event", kube.writes("create")[0][2]) == kube.writes("create")[0]


def test_a_workload_object_the_federation_did_not_place_runs_nothing_and_says_why():
    kube = FakeKube()
    cluster = fake_cluster(kube)
    cr = _cr("PinPod")
    _reconcile(cluster, cr)  # placed: its pod is made
    assert cluster.store.get("Pod", "search", "notebook") is not None
    del cr["metadata"]["labels"]["pincompute.io/federated"]  # as if written on the member directly
    before = len(kube.calls)

    outcome = _reconcile(cluster, cr)

    calls = kube.calls[before:]
    assert [c for c in calls if c[0] == "apply"] == []
    assert ("delete", "Pod", "notebook") in calls  # what an earlier run made from it is removed
    degraded = {c["type"]: c for c in _status_patch(kube)["conditions"]}["Degraded"]
    assert degraded["status"] == "True" and degraded["reason"] == "NotFederated"
    assert "label pincompute.io/federated=true" in degraded["message"] and "host" in degraded["message"]
    warnings = [(e["reason"], e["message"]) for e in kube.created if e.get("type") == "Warning"]
    assert warnings == [("NotFederated", degraded["message"])] and outcome.requeue_after is None


def test_an_unplaced_scaler_does_not_take_a_placed_apps_replicas():
    kube = FakeKube()
    cluster = fake_cluster(kube)
    scaler = _cr("PinScaler")
    del scaler["metadata"]["annotations"]["pincompute.io/host-uid"]
    cluster.store.apply("PinScaler", "ADDED", scaler)

    _reconcile(cluster, _cr("PinApp", **{"pincompute.io/zone": "us-east-1b"}))

    deployment = cluster.store.get("Deployment", "search", "web-us-east-1b")
    assert deployment is not None and deployment["spec"]["replicas"] >= 1


def test_pinapp_uses_the_placement_zone_and_leaves_replicas_to_a_scaler():
    kube = FakeKube()
    cluster = fake_cluster(kube)
    scaler = _cr("PinScaler")
    cluster.store.apply("PinScaler", "ADDED", scaler)

    _reconcile(cluster, _cr("PinApp", **{"pincompute.io/zone": "us-east-1b"}))

    deployment = cluster.store.get("Deployment", "search", "web-us-east-1b")
    assert deployment is not None and "replicas" not in deployment["spec"]


def test_scaler_with_schedules_requeues_at_the_next_minute():
    cluster = fake_cluster()

    outcome = _reconcile(cluster, _cr("PinScaler", **{"pincompute.io/zone": "us-east-1a"}))

    assert outcome.requeue_after == 30.5


def test_placement_reads_annotations_over_labels_and_defaults_to_the_cluster():
    cr = {
        "metadata": {
            "labels": {"pincompute.io/zone": "z1", "pincompute.io/shard-index": "1"},
            "annotations": {
                "pincompute.io/zone": "z2",
                "pincompute.io/shard-count": "3",
                "pincompute.io/replicas": "4",
            },
        }
    }

    placement = placement_for(cr, "member-a", "local-1a")
    default = placement_for({"metadata": {}}, "member-a", "local-1a")

    assert (placement.zone, placement.shard_index, placement.shard_count, placement.replicas) == ("z2", 1, 3, 4)
    assert (default.cluster, default.zone, default.shard_index, default.shard_count, default.replicas) == (
        "member-a",
        "local-1a",
        0,
        1,
        None,
    )


def test_conflict_is_retried_at_once_then_backs_off():
    kube = FakeKube()
    cluster = fake_cluster(kube)
    cr = _cr("PinPod")
    cluster.store.apply("PinPod", "ADDED", cr)
    kube.crs["notebook"] = cr
    operator = Operator({"member-a": cluster}, load_profile(), threading.Event())
    key = Key("member-a", "PinPod", "search", "notebook")
    kube.conflicts = 2
    kube.get = lambda res, namespace, name: copy.deepcopy(cr)  # the re-read after each conflict

    operator._process(key)

    assert (
        operator.metrics.count(
            CONFLICT_RETRIES_METRIC, {"controller": "member", "kind": "PinPod", "reason": "conflict"}
        )
        == 2
    )
    assert kube.writes("apply") == [("apply", "Pod", "notebook")]
    kube.conflicts = 5
    cluster.store.apply("Pod", "DELETED", {"metadata": {"namespace": "search", "name": "notebook"}})
    operator._process(key)
    assert operator.queue.failures(key) == 1  # gave up after 3 immediate retries: rate-limited requeue
