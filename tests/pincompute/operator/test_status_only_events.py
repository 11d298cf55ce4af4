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
