"""A CR event that only changed status (the operator's own write) does not queue a reconcile."""

import threading

from pincompute.operator.cluster import ClusterRuntime
from pincompute.operator.kubeio import NATIVE


class FakeKube:
    name = "member-a"


def _cr(generation: int, ready: str = "False", labels=None) -> dict:
    return {
        "kind": "PinPod",
        "metadata": {
            "name": "nb",
            "namespace": "proj-a",
            "uid": "u1",
            "generation": generation,
            "labels": labels or {},
        },
        "status": {"conditions": [{"type": "Ready", "status": ready}]},
    }


def test_status_only_updates_are_filtered_but_spec_and_label_changes_are_not():
    queued = []
    runtime = ClusterRuntime(
        FakeKube(),
        lambda key, cause="other", /: queued.append(key),
        threading.Event(),
        instance="t",
        background_events=False,
    )

    runtime._on_cr("ADDED", _cr(1))
    runtime._on_cr("MODIFIED", _cr(1, ready="True"))  # our own status write
    runtime._on_cr("MODIFIED", _cr(2, ready="True"))  # spec edited
    runtime._on_cr("MODIFIED", _cr(2, labels={"a": "b"}))  # placement labels changed
    runtime._on_cr("ADDED", _cr(2, labels={"a": "b"}))  # relist: always reconcile

    assert len(queued) == 4


def _pod(version: str, phase: str = "Pending") -> dict:
    return {
        "kind": "Pod",
        "metadata": {
            "name": "nb",
            "namespace": "proj-a",
            "uid": "p1",
            "resourceVersion": version,
            "ownerReferences": [{"apiVersion": "pincompute.io/v1", "kind": "PinPod", "name": "nb", "controller": True}],
        },
        "status": {"phase": phase},
    }


def test_the_echo_of_our_own_write_of_an_owned_object_queues_nothing_but_later_changes_do():
    queued, ignored = [], []
    runtime = ClusterRuntime(
        FakeKube(),
        lambda key, cause="other", /: queued.append((key.name, cause)),
        threading.Event(),
        instance="t",
        background_events=False,
        ignored=ignored.append,
    )
    runtime.native.update(NATIVE)

    runtime.remember(_pod("5"))  # the create's result
    runtime._on_owned("ADDED", _pod("5"))  # its echo
    runtime._on_owned("MODIFIED", _pod("6", "Running"))  # the kubelet's status
    runtime._on_owned("MODIFIED", _pod("6", "Running"))  # a relist's repeat: not ours, queued (deduplicated)
    runtime._on_owned("DELETED", _pod("6", "Running"))

    assert ignored == ["own_write"]
    assert queued == [("nb", "owned")] * 3


def _placed_app(clusters: list[str], ready: str = "True") -> dict:
    rows = [{"cluster": c, "zone": f"z-{c}", "shardIndex": i, "shardCount": 2} for i, c in enumerate(clusters)]
    return {
        "kind": "PinApp",
        "metadata": {"name": "web", "namespace": "proj-a", "uid": "u-web", "generation": 1},
        "status": {
            "conditions": [{"type": "Admitted", "status": "True"}, {"type": "Ready", "status": ready}],
            "placement": {"generation": 1, "clusters": rows},
        },
    }


def _scaler(name: str, target: str) -> dict:
    return {
        "kind": "PinScaler",
        "metadata": {"name": name, "namespace": "proj-a", "uid": f"u-{name}", "generation": 1},
        "spec": {"targetRef": {"name": target}},
    }


def test_a_pinapps_placement_moving_queues_the_scalers_that_target_it_and_only_then():
    """Its status is the federation's own write, so its key stays quiet; the scalers following it must not wait for
    the resync (a failover or a drain moves the PinApp's shards by a status write)."""
    from pincompute.operator.federation.host import HostRuntime

    queued: list[tuple[str, str]] = []
    enqueue = lambda key, cause="other", /: queued.append((key.name, cause))  # noqa: E731
    host = HostRuntime(FakeKube(), enqueue, on_members_changed=list)
    host.configs.ensure = lambda _namespace: None  # no config watches on a fake
    for scaler in (_scaler("follows", "web"), _scaler("elsewhere", "api")):
        host.store.apply("PinScaler", "ADDED", scaler)

    host._on_workload("ADDED", _placed_app(["member-a", "member-b"]))
    queued.clear()
    host._on_workload("MODIFIED", _placed_app(["member-a", "member-b"], ready="False"))  # status, same placement
    assert queued == []
    host._on_workload("MODIFIED", _placed_app(["member-a"]))  # failed over

    assert queued == [("follows", "target_placed")]
