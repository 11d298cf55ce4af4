"""A controller's FailedCreate Event reaches the CR whose object (or CronJob run) it is about, and its status."""

import threading

from pincompute.operator.cluster import ClusterRuntime, Key, Topology
from pincompute.operator.kubeio import NATIVE
from pincompute.operator.reconciler import controller_refusals
from tests.support.kubeio import FakeKube

SAID = 'pods "nightly-1-x" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true'
TEMPLATE = {"spec": {"containers": [{"name": "report", "image": "report:1"}]}}


def owned_by(kind, name, uid, owner_kind, owner_name, owner_uid, api_version="batch/v1"):
    ref = {"apiVersion": api_version, "kind": owner_kind, "name": owner_name, "uid": owner_uid, "controller": True}
    return {
        "apiVersion": "batch/v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": "search", "uid": uid, "ownerReferences": [ref]},
    }


def test_a_cronjob_runs_failed_create_requeues_its_cr_and_refuses_its_shard():
    queued: list[Key] = []
    cluster = ClusterRuntime(
        FakeKube(),
        lambda key, cause="other", /: queued.append(key),
        threading.Event(),
        instance="t",
        topology=Topology("z"),
        background_events=False,
    )
    cluster.native.update(NATIVE)
    cronjob = owned_by("CronJob", "nightly", "uid-cron", "PinterestCronJob", "nightly", "uid-cr", "pincompute.io/v1")
    cronjob["spec"] = {"jobTemplate": {"spec": {"template": TEMPLATE}}}
    run = owned_by("Job", "nightly-1", "uid-run", "CronJob", "nightly", "uid-cron")
    run.update(spec={"template": TEMPLATE}, status={})
    run["metadata"]["creationTimestamp"] = "2024-05-01T12:00:00Z"
    cluster.store.apply("CronJob", "ADDED", cronjob)
    cluster.store.apply("Job", "ADDED", run)
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "nightly-1.1", "namespace": "search"},
        "reason": "FailedCreate",
        "involvedObject": {"kind": "Job", "namespace": "search", "name": "nightly-1", "uid": "uid-run"},
        "message": f"Error creating: {SAID}",
        "lastTimestamp": "2024-05-01T12:00:01Z",
    }
    cluster.store.apply("Event", "ADDED", event)

    cluster._on_failed_create("ADDED", event)

    assert queued == [Key("member-a", "PinterestCronJob", "search", "nightly")]
    assert controller_refusals(cluster, [cronjob]) == {"nightly": SAID}
