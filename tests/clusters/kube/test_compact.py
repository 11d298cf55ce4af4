"""Compact pod records (clusters.kube.compact): every field the readers use answers exactly as the slimmed pod
did (property tests over generated pods), equal parts are shared and strings interned, and a 10k-pod store
holds under 3 KiB per pod."""

from __future__ import annotations

import copy
import gc
import json
import sys
import tracemalloc
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from clusters.kube.aggregates import pod_contribution
from clusters.kube.cache import cluster_store
from clusters.kube.compact import POD_READS, PodCompactor, Shared
from clusters.kube.slim import LAST_APPLIED, slim
from debugging.authz import container_names
from tests.support.pods import realistic_pod
from workloads.reads import _pod, pod_state, ready_count, restarts_of

MISSING = object()

# -- generated pods: any subset of the fields, any of the values a kubelet or a user can put there ---------------

text = st.sampled_from(["", "app", "web", "proj-a", "kwok-node-1", "10.0.0.1", "2025-11-22T04:00:00Z", "x" * 40])
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), text)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3)
)
quantities = st.sampled_from(["100m", "1", "512Mi", "1Gi", "2", "bogus"])
resources = st.fixed_dictionaries(
    {}, optional={"requests": st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]), quantities)}
)
container = st.fixed_dictionaries(
    {"name": st.sampled_from(["app", "sidecar", "init"])},
    optional={
        "image": text,
        "resources": resources,
        "restartPolicy": st.sampled_from(["Always"]),
        "env": st.lists(st.fixed_dictionaries({"name": text, "value": text}), max_size=2),
        "ports": st.lists(st.fixed_dictionaries({"containerPort": st.integers(1, 9000)}), max_size=2),
    },
)
state = st.one_of(
    st.just({}),
    st.fixed_dictionaries({"running": st.fixed_dictionaries({}, optional={"startedAt": text})}),
    st.fixed_dictionaries({"waiting": st.fixed_dictionaries({}, optional={"reason": text, "message": text})}),
    st.fixed_dictionaries(
        {"terminated": st.fixed_dictionaries({"exitCode": st.integers(0, 2)}, optional={"reason": text})}
    ),
)
container_status = st.fixed_dictionaries(
    {"name": st.sampled_from(["app", "sidecar"])},
    optional={
        "ready": st.booleans(),
        "started": st.booleans(),
        "restartCount": st.integers(0, 9),
        "image": text,
        "imageID": text,
        "containerID": text,
        "state": state,
        "lastState": state,
    },
)
labels = st.dictionaries(st.sampled_from(["app", "pincompute.io/workload", "pincompute.io/kind", "tier"]), text)
owner = st.fixed_dictionaries({"uid": text, "kind": st.just("ReplicaSet"), "name": text, "controller": st.booleans()})
metadata = st.fixed_dictionaries(
    {"name": text, "namespace": text},
    optional={
        "uid": text,
        "resourceVersion": st.integers(1, 10**6).map(str),
        "creationTimestamp": text,
        "deletionTimestamp": text,
        "generateName": text,
        "labels": labels,
        "annotations": st.dictionaries(st.sampled_from(["note", "pincompute.io/injected", LAST_APPLIED]), text),
        "ownerReferences": st.lists(owner, max_size=2),
        "managedFields": st.lists(json_values, max_size=2),
    },
)
spec = st.fixed_dictionaries(
    {},
    optional={
        "nodeName": text,
        "priorityClassName": st.sampled_from(["pincompute-ondemand", "pincompute-reserved", "other"]),
        "containers": st.lists(container, max_size=3),
        "initContainers": st.lists(container, max_size=2),
        "ephemeralContainers": st.lists(container, max_size=1),
        "tolerations": st.lists(json_values, max_size=2),
        "volumes": st.lists(json_values, max_size=2),
    },
)
status = st.fixed_dictionaries(
    {},
    optional={
        "phase": st.sampled_from(["Pending", "Running", "Succeeded", "Failed", "Unknown"]),
        "reason": text,
        "message": text,
        "podIP": text,
        "hostIP": text,
        "startTime": text,
        "qosClass": text,
        "conditions": st.lists(json_values, max_size=2),
        "containerStatuses": st.lists(container_status, max_size=3),
        "initContainerStatuses": st.lists(container_status, max_size=2),
        "ephemeralContainerStatuses": st.lists(container_status, max_size=1),
    },
)
pods = st.fixed_dictionaries(
    {"metadata": metadata},
    optional={"kind": st.just("Pod"), "apiVersion": st.just("v1"), "spec": spec, "status": status},
)


def read(obj: Any, path: tuple[str, ...]) -> Any:
    """The value at ``path`` as a reader's ``.get()`` chain sees it ("*": each element of a list)."""
    if not path:
        return obj
    head, rest = path[0], path[1:]
    if head == "*":
        return [read(item, rest) for item in obj] if isinstance(obj, list) else MISSING
    if not isinstance(obj, dict):
        return MISSING
    return read(obj[head], rest) if head in obj else MISSING


@settings(max_examples=200, deadline=None)
@given(pods)
def test_every_field_the_readers_use_answers_as_the_slimmed_pod_did(raw):
    original = copy.deepcopy(raw)

    compact = PodCompactor()(raw)

    assert raw == original  # the input may be shared: never mutated
    for path in POD_READS:
        assert read(compact, path) == read(slim(raw), path), path


@settings(max_examples=150, deadline=None)
@given(pods)
def test_every_reader_of_cached_pods_answers_the_same(raw):
    slimmed, compact = slim(raw), PodCompactor()(raw)

    assert _pod("member-a", compact) == _pod("member-a", slimmed)  # the workload page's pod rows
    assert pod_state(compact) == pod_state(slimmed) and restarts_of(compact) == restarts_of(slimmed)
    assert ready_count(compact) == ready_count(slimmed)
    assert container_names(compact) == container_names(slimmed)  # debugging's resolver
    assert pod_contribution(compact) == pod_contribution(slimmed)  # the aggregates


@settings(max_examples=200, deadline=None)
@given(pods, pods)
def test_compaction_does_not_depend_on_what_came_before(first, second):
    compactor = PodCompactor()
    compactor(first)

    assert json.dumps(compactor(second), sort_keys=True) == json.dumps(PodCompactor()(second), sort_keys=True)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_shared_values_equal_their_input(value):
    shared = Shared()

    assert shared(value) == value
    assert shared(copy.deepcopy(value)) is shared(value) or not isinstance(value, (dict, list))


def test_equal_parts_of_different_pods_are_one_object_and_strings_are_interned():
    compactor = PodCompactor()
    a, b = compactor(realistic_pod(1)), compactor(json.loads(json.dumps(realistic_pod(21))))  # same node (i % 20)

    assert a["metadata"]["labels"] is b["metadata"]["labels"]
    assert a["metadata"]["ownerReferences"] is b["metadata"]["ownerReferences"]
    assert a["spec"] is b["spec"]
    assert a["status"]["containerStatuses"][0] is b["status"]["containerStatuses"][0]
    assert a["metadata"]["namespace"] is b["metadata"]["namespace"]
    assert a["status"]["hostIP"] is b["status"]["hostIP"]
    assert a["metadata"]["name"] != b["metadata"]["name"]


def test_booleans_and_numbers_are_never_shared_for_each_other():
    shared = Shared()

    one, true = shared({"ready": 1}), shared({"ready": True})

    assert one is not true and type(true["ready"]) is bool and type(one["ready"]) is int


def test_the_shared_table_is_bounded_and_values_handed_out_stay_valid():
    shared = Shared(limit=10)
    handed = [shared({"n": str(i)}) for i in range(25)]

    assert len(shared) <= 10
    assert [h["n"] for h in handed] == [str(i) for i in range(25)]


def test_what_no_reader_uses_is_not_kept():
    compact = PodCompactor()(realistic_pod(1))

    assert set(compact) == {"kind", "apiVersion", "metadata", "spec", "status"}
    assert "managedFields" not in compact["metadata"] and "generateName" not in compact["metadata"]
    assert LAST_APPLIED not in compact["metadata"]["annotations"]
    assert set(compact["spec"]["containers"][0]) == {"name", "image", "resources"}
    assert "conditions" not in compact["status"] and "containerID" not in compact["status"]["containerStatuses"][0]


def test_the_store_compacts_pods_only():
    store = cluster_store()
    node = {"metadata": {"name": "n1"}, "spec": {"taints": [{"key": "x"}]}, "status": {"conditions": []}}
    store.replace("pods", [realistic_pod(1)])
    store.replace("nodes", [node])

    assert "tolerations" not in store.get("pods", "proj-a", "web-7d4b9c8f6-00001")["spec"]
    assert store.get("nodes", None, "n1")["spec"] == {"taints": [{"key": "x"}]}


def test_ten_thousand_pods_hold_under_3_kib_each():
    """The figure bench/read_path.py measures on real pods, here on the realistic ones (unique names, uids,
    IPs and resource versions; 200 pods per start second, as kwok starts them)."""
    items = []
    for i in range(10_000):
        p = realistic_pod(i)
        moment = f"2025-11-22T04:{i // 12000:02d}:{i // 200 % 60:02d}Z"
        p["metadata"] |= {"uid": f"{i:08d}-1111-2222-3333-444455556666", "creationTimestamp": moment}
        p["status"]["startTime"] = p["status"]["containerStatuses"][0]["state"]["running"]["startedAt"] = moment
        items.append(p)
    raw = json.dumps(items).encode()
    del items
    gc.collect()
    tracemalloc.start()
    try:
        store = cluster_store()
        store.replace("pods", json.loads(raw))
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    per_pod = held / store.count("pods")
    print(f"compact store: {per_pod:.0f} bytes per pod ({sys.version_info[:2]})")
    assert per_pod < 3 * 1024


def test_a_pods_failing_conditions_and_last_state_are_kept_for_the_diagnosis():
    pending = realistic_pod(2, phase="Pending")
    pending["status"]["conditions"] = [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/3 nodes are available",
         "lastProbeTime": None, "lastTransitionTime": "2026-11-22T00:00:00Z"},
        {"type": "Initialized", "status": "True", "lastTransitionTime": "2026-11-22T00:00:00Z"},
    ]  # fmt: skip
    pending["status"]["containerStatuses"][0]["lastState"] = {"terminated": {"exitCode": 1, "message": "boom"}}

    compact = PodCompactor()(pending)

    assert compact["status"]["conditions"] == [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/3 nodes are available"}
    ]
    assert compact["status"]["containerStatuses"][0]["lastState"] == {"terminated": {"exitCode": 1, "message": "boom"}}
