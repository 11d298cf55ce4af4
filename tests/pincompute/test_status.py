from datetime import UTC, datetime

from pincompute.crds import STATUS
from pincompute.errors import FieldError
from pincompute.status import aggregate_shards, derive_status, set_condition
from tests.support.examples import example

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
T1 = datetime(2024, 5, 1, 12, 5, tzinfo=UTC)


def deployment(name, zone, replicas, available, updated, generation=2, observed=2):
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "generation": generation, "labels": {"pincompute.io/zone": zone}},
        "spec": {"replicas": replicas},
        "status": {"availableReplicas": available, "updatedReplicas": updated, "observedGeneration": observed},
    }


def conditions(status):
    return {c["type"]: c for c in status["conditions"]}


def test_set_condition_keeps_transition_time_when_status_unchanged():
    first = set_condition([], "Ready", "False", "Creating", "", 1, T0)
    same = set_condition(first, "Ready", "False", "Progressing", "waiting", 2, T1)
    assert same[0]["lastTransitionTime"] == "2024-05-01T12:00:00Z"
    assert same[0]["reason"] == "Progressing"
    flipped = set_condition(same, "Ready", "True", "Available", "", 2, T1)
    assert flipped[0]["lastTransitionTime"] == "2024-05-01T12:05:00Z"
    assert len(flipped) == 1


def test_pinapp_ready_when_every_zone_is_available():
    cr = example("PinApp")
    objects = [deployment("web-us-east-1a", "us-east-1a", 3, 3, 3), deployment("web-us-east-1b", "us-east-1b", 2, 1, 2)]
    status = derive_status("PinApp", cr, objects, now=T0)
    assert (status["replicas"], status["readyReplicas"]) == (5, 4)
    assert conditions(status)["Ready"]["status"] == "False"
    assert conditions(status)["Progressing"]["message"] == "waiting for web-us-east-1b"
    assert [s["state"] for s in status["shards"]] == ["Available", "Progressing"]
    objects[1]["status"]["availableReplicas"] = 2
    cr["status"] = status
    ready = derive_status("PinApp", cr, objects, now=T1)
    assert conditions(ready)["Ready"]["status"] == "True"
    assert conditions(ready)["Degraded"]["lastTransitionTime"] == "2024-05-01T12:00:00Z"


def test_stale_observed_generation_is_still_progressing():
    status = derive_status(
        "PinterestService",
        example("PinterestService"),
        [deployment("api", "", 3, 3, 3, generation=3, observed=2)],
        now=T0,
    )
    assert conditions(status)["Progressing"]["status"] == "True"


def test_failed_job_is_degraded_and_completed_job_is_ready():
    job = {
        "kind": "Job",
        "metadata": {"name": "backfill"},
        "spec": {"completions": 8},
        "status": {
            "succeeded": 5,
            "failed": 4,
            "conditions": [{"type": "Failed", "status": "True", "message": "BackoffLimitExceeded"}],
        },
    }
    status = derive_status("PinterestJobSet", example("PinterestJobSet"), [job], now=T0)
    assert conditions(status)["Degraded"]["status"] == "True"
    assert "BackoffLimitExceeded" in conditions(status)["Degraded"]["message"]
    assert (status["succeeded"], status["failed"]) == (5, 4)
    job["status"] = {"succeeded": 8, "conditions": [{"type": "Complete", "status": "True"}]}
    done = derive_status("PinterestJobSet", example("PinterestJobSet"), [job], now=T0)
    assert conditions(done)["Ready"]["reason"] == "Succeeded"


def test_crashlooping_pod_is_degraded():
    pod = {
        "kind": "Pod",
        "metadata": {"name": "notebook"},
        "status": {
            "phase": "Running",
            "containerStatuses": [
                {
                    "name": "jupyter",
                    "ready": False,
                    "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "boom"}},
                }
            ],
        },
    }
    status = derive_status("PinPod", example("PinPod"), [pod], now=T0)
    assert conditions(status)["Degraded"]["status"] == "True"
    assert "CrashLoopBackOff" in conditions(status)["Degraded"]["message"]


def test_daemonset_and_cronjob_and_paused():
    daemon = {
        "kind": "DaemonSet",
        "metadata": {"name": "node-agent"},
        "status": {"desiredNumberScheduled": 4, "numberReady": 4, "updatedNumberScheduled": 4},
    }
    assert (
        conditions(derive_status("PinterestDaemon", example("PinterestDaemon"), [daemon], now=T0))["Ready"]["status"]
        == "True"
    )
    cron = {
        "kind": "CronJob",
        "metadata": {"name": "nightly"},
        "spec": {"suspend": False},
        "status": {"lastScheduleTime": "2024-05-01T02:30:00Z"},
    }
    status = derive_status("PinterestCronJob", example("PinterestCronJob"), [cron], now=T0)
    assert status["lastScheduleTime"] == "2024-05-01T02:30:00Z"
    paused = example("PinApp")
    paused["spec"]["operations"] = {"paused": True}
    assert conditions(derive_status("PinApp", paused, [], now=T0))["Ready"]["reason"] == "Paused"


def test_no_objects_yet_is_creating():
    status = derive_status("PinterestService", example("PinterestService"), [], now=T0)
    assert conditions(status)["Progressing"]["reason"] == "Creating"


def test_aggregate_shards_across_clusters():
    ready = derive_status("PinApp", example("PinApp"), [deployment("web-us-east-1a", "us-east-1a", 3, 3, 3)], now=T0)
    behind = derive_status("PinApp", example("PinApp"), [deployment("web-us-east-1b", "us-east-1b", 2, 0, 2)], now=T1)
    total = aggregate_shards({"member-b": behind, "member-a": ready})
    assert (total["replicas"], total["readyReplicas"]) == (5, 3)
    assert [s["cluster"] for s in total["shards"]] == ["member-a", "member-b"]
    merged = {c["type"]: c for c in total["conditions"]}
    assert merged["Ready"]["status"] == "False"
    assert merged["Ready"]["message"] == "clusters: member-b"
    assert merged["Progressing"]["status"] == "True"
    assert aggregate_shards({"member-a": ready})["conditions"][0]["status"] == "True"


def test_derived_status_fits_the_crd_status_schema():
    errors: list[FieldError] = []
    objects = [
        deployment("web-us-east-1a", "us-east-1a", 3, 3, 3),
        {"kind": "Job", "metadata": {"name": "j"}, "status": {"active": 1}},
    ]
    STATUS.check(derive_status("PinApp", example("PinApp"), objects, now=T0), "status", errors)
    assert errors == []
