"""A CR event that only changed status (the operator's own write) does not queue a reconcile."""

import threading

from pincompute.operator.cluster import ClusterRuntime


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
